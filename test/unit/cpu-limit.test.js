import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CPU_LIMITED_SHARE, cpuLimitation } from '../../orchestrator/lib/devices/cpu-limit.js';
import { hostSaturation } from '../../orchestrator/lib/result/result.js';

const entry = (t, peer, reason) => ({ t, peer, remote: 'x', video: { qualityLimitationReason: reason } });

test('the share of CPU-limited seconds over the window marks a starved host', () => {
  const timeline = [
    entry(1, 'p0', 'cpu'), // warm-up: not counted
    entry(2, 'p0', 'cpu'), entry(3, 'p0', 'none'), entry(4, 'p0', 'bandwidth'), entry(5, 'p0', 'cpu'),
    entry(2, 'p1', 'none'), entry(3, 'p1', 'none'), entry(4, 'p1', null), { t: 5, peer: 'p1', video: null },
  ];
  const result = cpuLimitation(timeline, [1, 5]);
  assert.deepEqual(result.byPeer, { p0: 0.5, p1: 0 });
  assert.equal(result.share, 2 / 6);
  assert.equal(result.limited, true);
  assert.deepEqual(result.seconds, [2, 5]);
  assert.deepEqual(result.peers, {
    p0: { limitedS: 2, episodes: [{ fromS: 1, toS: 2 }, { fromS: 4, toS: 5 }] }, p1: { limitedS: 0, episodes: [] },
  });
});

test('per peer: consecutive CPU-limited seconds form one span, counted once however many connections said so', () => {
  const timeline = [3, 4, 5, 9].flatMap((t) => [entry(t, 'p1', 'cpu'), { ...entry(t, 'p1', 'cpu'), remote: 'y' }])
    .concat([entry(6, 'p1', 'none'), entry(7, 'p1', 'bandwidth')]);
  assert.deepEqual(cpuLimitation(timeline, [0, 10]).peers.p1, { limitedS: 4, episodes: [{ fromS: 2, toS: 5 }, { fromS: 8, toS: 9 }] });
});

test('at or under the threshold, or without sending encoders, nothing is flagged', () => {
  const timeline = Array.from({ length: 10 }, (_, i) => entry(i + 1, 'p0', i < 10 * CPU_LIMITED_SHARE ? 'cpu' : 'none'));
  assert.equal(cpuLimitation(timeline, [0, 10]).limited, false);
  assert.deepEqual(cpuLimitation([], [0, 10]), {
    share: null, byPeer: {}, limited: false, thresholdShare: CPU_LIMITED_SHARE, seconds: [], peers: {},
  });
});

test('a host whose call processes keep nearly every core busy is saturated, whatever the encoders say', () => {
  const rows = (perSecond) => perSecond.flatMap((pct, i) => [{ t: i + 1, cpuPct: pct / 2 }, { t: i + 1.002, cpuPct: pct / 2 }]);
  const busy = hostSaturation(rows([190, 185, 120, 195, 60]), 2);
  assert.deepEqual(busy, { share: 3 / 5, saturated: true, thresholdPct: 180, cores: 2 });
  assert.equal(hostSaturation(rows([179, 100]), 2).saturated, false);
  assert.deepEqual(hostSaturation(rows([400]), undefined), { share: null, saturated: false, thresholdPct: null, cores: null });
});
