// A data flow whose channel cannot open (issue 12): from 3 s every packet of the link is lost, so the data flow that
// starts at 4 s renegotiates SCTP over signaling but its association never completes. The page reports the channel
// still connecting 10 s later; the run fails with that error, writes result.json, and leaves no browser behind.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { processesTagged, runCli, runTag, tempDir } from './helpers/cli.js';

test('a data channel that does not open within 10 s fails the run, naming the flow, with result.json written and no browser left', async () => {
  const dir = tempDir('wtb-dc-fail-');
  const scenario = path.join(dir, 'data-channel-blocked.json');
  writeFileSync(scenario, JSON.stringify({
    name: 'data-channel-blocked', description: 'the link drops everything from 3 s; a data flow starts at 4 s', durationS: 40, warmupS: 2, peers: 2,
    network: { link: {}, schedule: [{ at: 3, set: { lossPct: 100 } }] },
    flows: [{ name: 'bulk', kind: 'data', startS: 4, stopS: 35, from: 'p0', to: 'p1' }],
  }));
  const out = path.join(dir, 'out');
  const { env, tag } = runTag();
  const run = await runCli(['scenario', scenario, '--video', '360p30', '--out', out], { env, timeoutMs: 120_000 });
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, 4, output);

  const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'));
  assert.equal(result.status, 'failed', output);
  const messages = result.errors.map((/** @type {{ message: string }} */ e) => e.message);
  assert.ok(messages.some((m) => /data channel bulk to p1 did not open within 10 s/.test(m)), `errors: ${JSON.stringify(messages)}`);
  assert.match(output, /data channel bulk to p1 did not open/);
  // The failure came from the channel, 10 s after the flow started, not from the end of the run.
  assert.ok(result.timeline.length > 0, 'result.timeline: nothing to check');
  assert.ok(result.timeline.every((/** @type {{ t: number }} */ e) => e.t < 30), `the run went on after the failure: last t ${result.timeline.at(-1)?.t}`);
  assert.deepEqual(processesTagged(tag), [], 'processes of the run are still alive');
});
