import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { harnessCommit, harnessTreeDirty } from '../../orchestrator/lib/system/harness-commit.js';
import { REPO_ROOT } from '../../orchestrator/lib/system/paths.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

/** A checkout with the given files under .git (a folder) @param {Record<string, string>} files */
function checkout(files) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'wtb-git-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, '.git', name)), { recursive: true });
    writeFileSync(path.join(root, '.git', name), text);
  }
  return root;
}

test('the commit comes from a loose ref, a packed ref or a detached HEAD', () => {
  assert.equal(harnessCommit(checkout({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': `${A}\n` })), A);
  assert.equal(harnessCommit(checkout({ HEAD: 'ref: refs/heads/main\n', 'packed-refs': `# pack-refs\n${B} refs/heads/other\n${A} refs/heads/main\n` })), A);
  assert.equal(harnessCommit(checkout({ HEAD: `${B}\n` })), B);
});

test('a worktree: HEAD in its own git folder, refs in the common one', () => {
  const main = checkout({ 'refs/heads/feature': `${B}\n`, 'worktrees/wt/HEAD': 'ref: refs/heads/feature\n', 'worktrees/wt/commondir': '../..\n' });
  const worktree = mkdtempSync(path.join(os.tmpdir(), 'wtb-wt-'));
  writeFileSync(path.join(worktree, '.git'), `gitdir: ${path.join(main, '.git', 'worktrees', 'wt')}\n`);
  assert.equal(harnessCommit(worktree), B);
});

test('null, not a guess, outside a checkout or on a ref that is missing, malformed or climbs out', () => {
  assert.equal(harnessCommit(mkdtempSync(path.join(os.tmpdir(), 'wtb-nogit-'))), null);
  assert.equal(harnessCommit(checkout({ HEAD: 'ref: refs/heads/gone\n' })), null);
  assert.equal(harnessCommit(checkout({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': 'not a sha\n' })), null);
  assert.equal(harnessCommit(checkout({ HEAD: 'ref: refs/../../etc/passwd\n' })), null);
});

test('this repository\'s own checkout has one', () => {
  assert.match(String(harnessCommit(REPO_ROOT)), /^[0-9a-f]{40}$/);
});

test('the tree state: clean, then with an uncommitted file, and null outside a checkout', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'wtb-tree-'));
  assert.equal(harnessTreeDirty(root), null, 'no checkout');
  const git = (/** @type {string[]} */ ...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(path.join(root, 'a.txt'), 'a');
  git('add', 'a.txt');
  git('commit', '-q', '-m', 'a');
  assert.equal(harnessTreeDirty(root), false);
  writeFileSync(path.join(root, 'a.txt'), 'changed');
  assert.equal(harnessTreeDirty(root), true);
});
