// A short real call through the relay: result.json carries the relay's own load per second (network.emulatorLoad)
// with values a 360p30 two-party call gives, and on an idle link the relay never fell behind.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runScenarioCli } from './helpers/cli.js';

const DURATION_S = 12;

test('a 12 s 360p30 call on an idle link: the relay\'s load rows are in result.json, plausible, and none fell behind', async () => {
  const run = await runScenarioCli('unconstrained', ['--duration', String(DURATION_S), '--warmup', '2']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const { network, summary } = run.result;
  assert.equal(network.emulator, 'relay');
  const inCall = network.emulatorLoad.filter((row) => row.t > 1 && row.t <= DURATION_S);
  assert.ok(inCall.length >= DURATION_S - 2, `one row a second: ${JSON.stringify(network.emulatorLoad)}`);
  for (const row of inCall) {
    // Two peers' audio and video both ways cross the relay: a few hundred datagrams a second, each one sent.
    assert.ok(row.packetsIn > 100 && row.packetsIn < 5000, JSON.stringify(row));
    assert.ok(Math.abs(row.packetsOut - row.packetsIn) <= row.packetsIn * 0.05 + 5, JSON.stringify(row));
    assert.ok(row.busyPct > 0 && row.busyPct < 50, JSON.stringify(row));
    assert.ok(row.lateP99Ms > 0 && row.lateP99Ms <= 1 && row.lateMaxMs >= 0, JSON.stringify(row));
    // The native path reads the kernel's arrival stamps: the host's hand-over shows apart from the relay's lateness.
    if (row.packetPath === 'native') assert.ok(row.wakeP99Ms > 0 && row.wakeMaxMs >= row.wakeP99Ms - 0.1, JSON.stringify(row));
    else assert.ok(row.wakeP99Ms === null && row.wakeMaxMs === null, JSON.stringify(row));
    assert.equal(row.behind, false, JSON.stringify(row));
  }
  const measuredSeconds = network.emulatorLoad.filter((row) => row.t > 0 && row.t <= DURATION_S).length;
  const { lateMaxMs, ...behind } = summary.emulatorBehind;
  assert.deepEqual(behind, { behind: false, seconds: 0, measuredSeconds, spans: [] });
  assert.ok(lateMaxMs >= 0, `the latest datagram: ${lateMaxMs} ms`);
  assert.doesNotMatch(run.stderr, /fell behind/);
  assert.doesNotMatch(readFileSync(path.join(run.out, 'report.html'), 'utf8'), /Emulator fell behind/);
});
