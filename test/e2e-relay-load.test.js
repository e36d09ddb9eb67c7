// A short real call through the relay: result.json carries the relay's own load per second (network.emulatorLoad)
// with values a 360p30 two-party call gives, and on a link with only a delay the relay never fell behind but when the
// host did not run it (its own timer woke as late as its datagrams left, or its thread was off the CPU that long within
// a busy turn: the browsers on its two cores, a VM's vCPU, a kernel that does not preempt).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runScenarioCli } from './helpers/cli.js';
import { HOST_STALL_SLACK_MS } from '../orchestrator/lib/devices/cpu-limit.js';
import { BEHIND_LATENESS_MS } from '../orchestrator/emulators/relay/load-meter.js';

// The rows' presence and plausibility, not a rate the call converges to: a short call.
const DURATION_S = 8;

test('an 8 s 360p30 call on a 100 ms link: the relay\'s load rows are in result.json, plausible, and it fell behind only in host stalls', async () => {
  const run = await runScenarioCli('latency-100', ['--duration', String(DURATION_S), '--warmup', '2']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const { network, summary } = run.result;
  assert.equal(network.emulator, 'relay');
  const inCall = network.emulatorLoad.filter((row) => row.t > 1 && row.t <= DURATION_S);
  assert.ok(inCall.length >= DURATION_S - 2, `one row a second: ${JSON.stringify(network.emulatorLoad)}`);
  for (const row of inCall) {
    // Two peers' audio and video both ways cross the relay: a few hundred datagrams a second.
    assert.ok(row.packetsIn > 100 && row.packetsIn < 5000, JSON.stringify(row));
    assert.ok(row.busyPct > 0 && row.busyPct < 50, JSON.stringify(row));
    // Every datagram waits 100 ms in the relay: its timer sends them, mostly waking an idle relay, and the native path
    // says how long after the timer's time the host woke it.
    // Its thread runs all of a busy turn but when the host preempts it.
    if (row.packetPath === 'native') {
      assert.ok(row.timerWakeMaxMs >= 0 && row.timerWakeMaxMs < 1000, JSON.stringify(row));
      assert.ok(row.offCpuMaxMs >= 0 && row.offCpuMaxMs < 1000, JSON.stringify(row));
    } else assert.ok(row.timerWakeMaxMs === null && row.offCpuMaxMs === null, JSON.stringify(row));
    const heldMs = Math.max(row.timerWakeMaxMs ?? -1, row.offCpuMaxMs ?? -1);
    const hostStall = heldMs >= row.lateP99Ms - HOST_STALL_SLACK_MS;
    const limitMs = BEHIND_LATENESS_MS[row.packetPath === 'native' ? 'native' : 'dgram'];
    assert.ok(row.lateP99Ms > 0 && (row.lateP99Ms <= limitMs || hostStall) && row.lateMaxMs >= 0, JSON.stringify(row));
    // The native path reads the kernel's arrival stamps: the host's hand-over shows apart from the relay's lateness.
    if (row.packetPath === 'native') assert.ok(row.wakeP99Ms > 0 && row.wakeMaxMs >= row.wakeP99Ms - 0.1, JSON.stringify(row));
    else assert.ok(row.wakeP99Ms === null && row.wakeMaxMs === null, JSON.stringify(row));
    assert.equal(row.behind, row.lateP99Ms > limitMs, JSON.stringify(row));
  }
  // Each one sent: the link holds 100 ms of datagrams, so a second's out lags its in while the call ramps up (392 in,
  // 351 out in a first second); over the call they agree.
  const total = (/** @type {'packetsIn'|'packetsOut'} */ field) => inCall.reduce((sum, row) => sum + row[field], 0);
  assert.ok(Math.abs(total('packetsOut') - total('packetsIn')) <= total('packetsIn') * 0.03 + 10, `${total('packetsIn')} in, ${total('packetsOut')} out`);
  const measuredSeconds = network.emulatorLoad.filter((row) => row.t > 0 && row.t <= DURATION_S).length;
  const { lateMaxMs, spans: _spans, ...behind } = summary.emulatorBehind;
  assert.equal(behind.measuredSeconds, measuredSeconds);
  assert.equal(behind.hostStallSeconds, behind.seconds, `every second behind is a host stall: ${JSON.stringify(summary.emulatorBehind)}`);
  assert.ok(lateMaxMs >= 0, `the latest datagram: ${lateMaxMs} ms`);
  if (!behind.behind) {
    assert.doesNotMatch(run.stderr, /fell behind/);
    assert.doesNotMatch(readFileSync(path.join(run.out, 'report.html'), 'utf8'), /Emulator fell behind/);
  } else assert.match(run.stderr, /the host held it off the CPU as long/);
});
