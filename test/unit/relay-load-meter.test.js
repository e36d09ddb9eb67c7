import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BEHIND_LATENESS_MS, LoadMeter } from '../../orchestrator/emulators/relay/load-meter.js';

test('a second whose p99 lateness passes the threshold (2 ms on dgram) is marked behind; the seconds around it, on time, are not', () => {
  const meter = new LoadMeter(0, 0, BEHIND_LATENESS_MS.dgram);
  const second = (lateMs, count, endMs) => {
    for (let i = 0; i < count; i++) {
      meter.received(null);
      meter.sent(lateMs(i));
    }
    meter.tick(endMs, 0.25);
  };
  second(() => 0.2, 1000, 1000);
  // 2 % of the datagrams 3 ms late: p99 is 3 ms.
  second((i) => (i % 50 === 0 ? 3 : 0.2), 1000, 2000);
  second(() => 0.3, 500, 3000);
  const rows = meter.take();
  assert.deepEqual(rows.map(({ t, packetsIn, packetsOut, behind }) => ({ t, packetsIn, packetsOut, behind })), [
    { t: 1, packetsIn: 1000, packetsOut: 1000, behind: false },
    { t: 2, packetsIn: 1000, packetsOut: 1000, behind: true },
    { t: 3, packetsIn: 500, packetsOut: 500, behind: false },
  ]);
  assert.ok(rows[1].lateMsP99 > BEHIND_LATENESS_MS.dgram && rows[1].lateMsMax === 3);
  assert.equal(rows[0].busyPct, 25);
  assert.deepEqual(meter.take(), []);
});

test('1.5 ms late at p99 is behind on the native path (its timer is exact to the µs), not on dgram (whole-ms timers)', () => {
  /** @param {number} behindMs */
  const behindAt = (behindMs) => {
    const meter = new LoadMeter(0, 0, behindMs);
    for (let i = 0; i < 1000; i++) meter.sent(i % 50 === 0 ? 1.5 : 0.1);
    meter.tick(1000, 0.1);
    const rows = meter.take();
    assert.ok(rows.length === 1 && Number(rows[0].lateMsP99) > 1 && Number(rows[0].lateMsP99) < 2, JSON.stringify(rows));
    return rows[0].behind;
  };
  assert.equal(behindAt(BEHIND_LATENESS_MS.native), true);
  assert.equal(behindAt(BEHIND_LATENESS_MS.dgram), false);
});

test('a tick inside the second in progress closes nothing, and an idle second is a row of zeros, not behind', () => {
  const meter = new LoadMeter(0, 500, BEHIND_LATENESS_MS.native);
  meter.tick(900, 0.1);
  assert.deepEqual(meter.take(), []);
  meter.tick(1001, 0);
  assert.deepEqual(meter.take(), [
    {
      t: 1, packetsIn: 0, packetsOut: 0, busyPct: 0, lateMsP99: null, lateMsMax: null, wakeMsP99: null, wakeMsMax: null,
      timerWakeMsMax: null, offCpuMsMax: null, behind: false,
    },
  ]);
});

test('a tick 2.5 s late (a stalled relay) closes one row labelled by the second it ends in, not the first one it covers', () => {
  const meter = new LoadMeter(0, 0, BEHIND_LATENESS_MS.native);
  meter.tick(1005, 0.1);
  meter.received(null);
  meter.sent(240);
  meter.tick(3505, 0.9);
  assert.deepEqual(meter.take().map(({ t, packetsOut, behind }) => ({ t, packetsOut, behind })), [
    { t: 1, packetsOut: 0, behind: false },
    { t: 3, packetsOut: 1, behind: true },
  ]);
});

test('wake-ups (kernel stamp to read) are their own columns: a host that handed datagrams over 4 ms late is not the relay behind', () => {
  const meter = new LoadMeter(0, 0, BEHIND_LATENESS_MS.native);
  for (let i = 0; i < 1000; i++) {
    meter.received(i % 50 === 0 ? 4 : 0.05);
    meter.sent(0.2);
  }
  meter.tick(1005, 0.05);
  const [row] = meter.take();
  assert.ok(row.wakeMsP99 !== null && row.wakeMsP99 > 3.9 && row.wakeMsMax === 4, JSON.stringify(row));
  assert.equal(row.behind, false);
  assert.ok(row.lateMsP99 !== null && row.lateMsP99 < 1, JSON.stringify(row));
});

test('the host\'s wake-up for the timer is the second\'s maximum, and a second without one says null', () => {
  const meter = new LoadMeter(0, 0, BEHIND_LATENESS_MS.native);
  meter.timerWoke(0.05);
  meter.timerWoke(5.9);
  meter.timerWoke(0.01);
  meter.tick(1000, 0.1);
  meter.tick(2000, 0.1);
  assert.deepEqual(meter.take().map((row) => row.timerWakeMsMax), [5.9, null]);
});

test('the time off the CPU in a busy turn is the packet path\'s figure for the second the tick closes, rounded to the µs', () => {
  const meter = new LoadMeter(0, 0, BEHIND_LATENESS_MS.native);
  meter.tick(1000, 0.1, 5.41234);
  meter.tick(2000, 0.1, 0);
  meter.tick(3000, 0.1);
  assert.deepEqual(meter.take().map((row) => row.offCpuMsMax), [5.412, 0, null]);
});
