// coturn's load from /proc (lib/devices/turn-load.js): the namespace's interface counters and relay sockets parsed
// from the kernel's text (and garbage refused line by line), rows from two readings, the result's section and report.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNetDev, relaySocketCount, turnLoadRow, turnLoadSection } from '../../orchestrator/lib/devices/turn-load.js';
import { renderTurnLoad } from '../../orchestrator/report/render-turn-load.js';

const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:  900000    100    0    0    0     0          0         0   900000    100    0    0    0     0       0          0
wtb-abc-sfu0: 125000   1000    0    0    0     0          0         0  250000   2000    0    0    0     0       0          0
`;
const UDP = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  101: 02C9C90A:C028 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 ffff 0
  102: 02C9C90A:C0A0 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 ffff 0
  103: 02C9C90A:C1B0 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 ffff 0
  104: 02C9C90A:9C40 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 ffff 0
`;

test('net/dev: every interface but loopback summed; a line that does not parse is skipped, none parsed is null', () => {
  assert.deepEqual(parseNetDev(NET_DEV), { rxBytes: 125000, txBytes: 250000 });
  assert.deepEqual(parseNetDev(`${NET_DEV}eth1: 5 1 0 0 0 0 0 0 7 1 0 0 0 0 0 0\n`), { rxBytes: 125005, txBytes: 250007 });
  assert.equal(parseNetDev('lo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n'), null);
  assert.equal(parseNetDev('eth0: 1 2 3\nx: a b c d e f g h i j k l m n o p\n'), null);
  assert.equal(parseNetDev(`eth0: ${'9'.repeat(30)} 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0\n`), null, 'an unsafe integer is not a count');
  assert.equal(parseNetDev(''), null);
});

test('net/udp: sockets bound in the relay range counted, listeners excluded; not the table: null', () => {
  // C028 = 49192, C0A0 = 49312, C1B0 = 49584 (outside), 9C40 = 40000 (outside)
  assert.equal(relaySocketCount(UDP, { minPort: 49160, maxPort: 49400 }), 2);
  assert.equal(relaySocketCount(UDP, { minPort: 49160, maxPort: 49400, exclude: [49192] }), 1);
  assert.equal(relaySocketCount(UDP.split('\n')[0], { minPort: 49160, maxPort: 49400 }), 0);
  assert.equal(relaySocketCount('garbage\n  1: 02C9C90A:C028 x', { minPort: 49160, maxPort: 49400 }), null);
});

/** @param {number} epochMs @param {number} cpuTicks @param {number} rx @param {number} tx @param {number} [start] */
const reading = (epochMs, cpuTicks, rx, tx, start = 7) => ({
  epochMs,
  proc: { atMs: epochMs, processes: new Map([[42, { pid: 42, comm: 'turnserver', state: 'S', ppid: 1, cpuTicks, startTimeTicks: start, rssKb: 10240 }]]) },
  link: { rxBytes: rx, txBytes: tx },
  allocations: 2,
});

test('a row: the second\'s kbps each way, CPU of one core, memory; another process or no time: no row', () => {
  assert.deepEqual(turnLoadRow(reading(1000, 100, 0, 0), reading(2000, 105, 250_000, 125_000), 100),
    { epochMs: 2000, allocations: 2, inKbps: 2000, outKbps: 1000, cpuPct: 5, rssMb: 10 });
  assert.equal(turnLoadRow(reading(1000, 100, 0, 0), reading(2000, 105, 1, 1, 8), 100), null);
  assert.equal(turnLoadRow(reading(1000, 100, 0, 0), reading(1000, 105, 1, 1), 100), null);
  const backwards = turnLoadRow(reading(1000, 100, 500, 500), reading(2000, 100, 100, 600), 100);
  assert.deepEqual([backwards?.inKbps, backwards?.outKbps], [null, 0.8]);
});

test('the section: rows on the media clock within the call, means after the warm-up; no call, no rows: says why', () => {
  const rows = [0.5, 1.5, 2.5, 3.5, 9].map((s, i) => ({
    epochMs: 10_000 + s * 1000, allocations: i < 2 ? 1 : 2, inKbps: 100 * (i + 1), outKbps: 50, cpuPct: 2, rssMb: 10 + i,
  }));
  const section = turnLoadSection({ rows, unavailable: null }, 10_000, { warmupS: 1, durationS: 4 });
  assert.deepEqual(section.rows.map((row) => row.t), [0.5, 1.5, 2.5, 3.5]);
  assert.deepEqual(section.summary, { maxAllocations: 2, inKbpsMean: 300, outKbpsMean: 50, cpuPctMean: 2, peakRssMb: 13 });
  assert.equal(section.unavailable, null);
  assert.deepEqual(turnLoadSection({ rows, unavailable: null }, null, { warmupS: 1, durationS: 4 }).unavailable, 'not sampled: the call did not start');
  const none = turnLoadSection({ rows: [], unavailable: 'reading failed' }, 10_000, { warmupS: 1, durationS: 4 });
  assert.deepEqual([none.summary, none.unavailable], [null, 'reading failed']);

  const html = renderTurnLoad({ resources: { turn: section } });
  assert.match(html, /<h2>TURN server load<\/h2>[\s\S]*<td>2<\/td><td>300<\/td><td>50<\/td><td>2\.0<\/td><td>13<\/td>/);
  assert.match(renderTurnLoad({ resources: { turn: none } }), /Not measured: reading failed/);
  assert.equal(renderTurnLoad({ resources: {} }), '');
});
