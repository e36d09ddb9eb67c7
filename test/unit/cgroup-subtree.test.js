// cgroup v2's cgroup.subtree_control, on a temp dir laid out like a cgroup2 root (this host is cgroup v1): a run
// enables only the controllers its root lacks, and its closer and its guardian disable exactly those again, unless
// another run's cgroup still needs them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parentSteps, revertParentSteps, stepCommand } from '../../orchestrator/lib/devices/cpu-cgroup.js';
import { shellJoin } from '../../orchestrator/emulators/script.js';
import { revertSubtreeControl } from '../../orchestrator/run/cgroups.js';
import { tempDir } from '../helpers/cli.js';

const CGROUP_GUARDIAN = fileURLToPath(new URL('../../orchestrator/run/cgroup-guardian.js', import.meta.url));

/** A cgroup2 root whose children have `enabled` already. */
function fixtureRoot(enabled) {
  const root = tempDir('wtb-cgroup2-');
  writeFileSync(path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
  writeFileSync(path.join(root, 'cgroup.subtree_control'), `${enabled}\n`);
  mkdirSync(path.join(root, 'system.slice'));
  return root;
}
const subtreeControl = (root) => readFileSync(path.join(root, 'cgroup.subtree_control'), 'utf8').trim();

/**
 * Does a step as the kernel would on cgroup.subtree_control (`+x` adds, `-x` removes) and logs its shell line.
 * @param {string[]} lines
 */
const kernelLike = (lines) => async (step) => {
  assert.equal(step.op, 'write');
  const now = new Set(readFileSync(step.file, 'utf8').split(/\s+/).filter(Boolean));
  for (const token of step.value.split(' ')) {
    if (token.startsWith('+')) now.add(token.slice(1));
    else now.delete(token.slice(1));
  }
  writeFileSync(step.file, [...now].join(' '));
  lines.push(stepCommand(step, shellJoin));
};

test('cgroup v2: a run enables only the controllers subtree_control lacks, and its closer disables exactly those', async () => {
  const root = fixtureRoot('cpuset memory');
  const lines = [];
  const parent = parentSteps({ version: 2, root }, ['cpu', 'cpuset'], subtreeControl(root));
  assert.deepEqual(parent.enabled, ['cpu']);
  for (const step of parent.steps) await kernelLike(lines)(step);
  assert.equal(subtreeControl(root), 'cpuset memory cpu');
  assert.deepEqual(await revertSubtreeControl({ root, enabled: parent.enabled }, kernelLike(lines)), []);
  assert.equal(subtreeControl(root), 'cpuset memory', 'cpuset and memory were there before the run and stay');
  assert.deepEqual(lines, [`echo +cpu > ${root}/cgroup.subtree_control`, `echo -cpu > ${root}/cgroup.subtree_control`]);
});

test('cgroup v2: while another run\'s cgroup is there, the controllers the run enabled stay enabled', async () => {
  const root = fixtureRoot('cpu cpuset memory');
  mkdirSync(path.join(root, 'wtb-other-p1'));
  const lines = [];
  assert.deepEqual(await revertSubtreeControl({ root, enabled: ['cpu', 'cpuset'] }, kernelLike(lines)), ['wtb-other-p1']);
  assert.deepEqual(lines, []);
  assert.equal(subtreeControl(root), 'cpu cpuset memory');
  // Nothing enabled by the run: nothing to revert, and nothing kept for anyone.
  assert.deepEqual(revertParentSteps(root, [], ['wtb-other-p1']), { steps: [], keptFor: [] });
});

test('a killed orchestrator\'s cgroup guardian removes its cgroup, then writes -cpu for the cpu controller the run enabled, and only that', async () => {
  const root = fixtureRoot('cpu');
  const dir = path.join(root, 'wtb-g1-p0');
  mkdirSync(dir);
  const files = { log: path.join(tempDir(), 'guardian.log'), owner: path.join(tempDir(), 'owner') };
  writeFileSync(files.owner, '{}');
  const guardian = spawn(process.execPath, [CGROUP_GUARDIAN, files.log, files.owner, JSON.stringify({ root, enabled: ['cpu'] }), dir],
    { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => { guardian.on('exit', (code) => resolve(code)); });
  guardian.stdin.end();
  assert.equal(await exited, 0);
  const log = readFileSync(files.log, 'utf8');
  assert.match(log, new RegExp(`ok: rmdir ${dir}\\n.* ok: echo -cpu > ${root}/cgroup.subtree_control\\n`));
  // A plain file holds what was written last: the one write of the revert.
  assert.equal(subtreeControl(root), '-cpu');
});
