// bench/load-room-figures.js: the arithmetic of bench/multiparty.js --load on hand-made results: the --sizes list, the
// browsers' worst CPU-limited share by either verdict, and each process's cost with the load participants summed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_LOAD_SIZES, parseLoadSizes, roomCosts, worstCpuLimitedShare } from '../../bench/load-room-figures.js';
import { MAX_LOAD_PARTICIPANTS } from '../../orchestrator/lib/input/limits.js';

test('parseLoadSizes: the default grows to 23 load participants (a 25-party room); a list is sorted, each size once', () => {
  assert.deepEqual(parseLoadSizes(DEFAULT_LOAD_SIZES), [0, 4, 8, 13, 18, 23]);
  assert.deepEqual(parseLoadSizes('8, 0,8,4'), [0, 4, 8]);
  assert.deepEqual(parseLoadSizes(String(MAX_LOAD_PARTICIPANTS)), [MAX_LOAD_PARTICIPANTS]);
});

test('parseLoadSizes: a size that is no count, negative, fractional, empty or over the scenario limit names the flag', () => {
  for (const text of ['4,x', '-1', '2.5', '4,,8', '', String(MAX_LOAD_PARTICIPANTS + 1)]) {
    assert.throws(() => parseLoadSizes(text, '--sizes'), /^RangeError: --sizes: '.*' is not a count of load participants from 0 to 50; give a comma-separated list such as 0,4,8,13,18,23$/, text);
  }
});

test('worstCpuLimitedShare: the largest share of any browser by its encoder or by the harness; null when none judged', () => {
  assert.equal(worstCpuLimitedShare({ byPeer: { p0: 0.1, p1: 0 }, harness: { peers: { p0: { share: 0.05 }, p1: { share: 0.3 } } } }), 0.3);
  assert.equal(worstCpuLimitedShare({ byPeer: { p0: 0.25 }, harness: { peers: { p0: { share: null } } } }), 0.25);
  assert.equal(worstCpuLimitedShare({ byPeer: {}, harness: { peers: {} } }), null);
  assert.equal(worstCpuLimitedShare(null), null);
});

test('roomCosts: each browser, the SFU and the relay by their process names; the load participants summed and per sampled one', () => {
  const process = (mean, peakRssMb) => ({ cpuPct: { mean }, peakRssMb });
  const summary = {
    p0: process(44, 1200), p1: process(46, 1250), janus: process(12.5, 90), relay: process(9, 60),
    load0: process(3, 20), load1: process(5, 24), load2: process(null, 22),
  };
  const costs = roomCosts(summary, { browsers: ['p0', 'p1'], sfu: 'janus', relay: 'relay', load: ['load0', 'load1', 'load2', 'load3'] });
  assert.deepEqual(costs, {
    browsers: { p0: { cpuPct: 44, peakRssMb: 1200 }, p1: { cpuPct: 46, peakRssMb: 1250 } },
    sfu: { cpuPct: 12.5, peakRssMb: 90 },
    relay: { cpuPct: 9, peakRssMb: 60 },
    // load2 had no CPU mean and load3 was never sampled: the sum and its share are over the two sampled.
    load: { participants: 4, sampled: 2, cpuPct: 8, peakRssMb: 44, cpuPctEach: 4, peakRssMbEach: 22 },
  });
});

test('roomCosts: a room without load participants, and a process not sampled, give nulls rather than zeros', () => {
  const costs = roomCosts({ p0: { cpuPct: { mean: 40 }, peakRssMb: 1100 } }, { browsers: ['p0', 'p1'], sfu: 'janus', relay: 'relay', load: [] });
  assert.deepEqual(costs.browsers.p1, { cpuPct: null, peakRssMb: null });
  assert.deepEqual(costs.sfu, { cpuPct: null, peakRssMb: null });
  assert.deepEqual(costs.load, { participants: 0, sampled: 0, cpuPct: null, peakRssMb: null, cpuPctEach: null, peakRssMbEach: null });
});
