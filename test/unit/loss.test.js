import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkWireLossPct, lossSummary, routeWireLossPct, truthBySecond, withWireLoss } from '../../orchestrator/lib/result/loss.js';

const ROUTES = { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] };

test('a link loses random and queue drops over the packets that entered it; nothing entered: unknown', () => {
  assert.equal(linkWireLossPct({ packetsIn: 200, dropsLoss: 8, dropsQueue: 2 }), 5);
  assert.equal(linkWireLossPct({ packetsIn: 0, dropsLoss: 0, dropsQueue: 0 }), null);
  assert.equal(linkWireLossPct({ packetsIn: 40, dropsLoss: 1 }), 2.5, 'a row without queue drops (netem without a queue stage)');
});

test('a route delivers what every link lets through: 5 % twice is 9.75 %, not 10 %', () => {
  assert.equal(routeWireLossPct([5, 5]), 9.75);
  assert.equal(routeWireLossPct([5, 0]), 5);
  assert.equal(routeWireLossPct([5, null]), null);
  assert.equal(routeWireLossPct([]), null);
});

test('truth rows go to the nearest timeline second; two reads landing on one second add up', () => {
  const bySecond = truthBySecond([
    { t: 2.4, link: 'p0.up', packetsIn: 100, dropsLoss: 5, dropsQueue: 0 },
    { t: 3.4, link: 'p0.up', packetsIn: 60, dropsLoss: 1, dropsQueue: 0 },
    { t: 3.6, link: 'p0.up', packetsIn: 40, dropsLoss: 1, dropsQueue: 2 },
    { t: null, link: 'p0.up', packetsIn: 999 },
  ]);
  assert.deepEqual([...bySecond.get('p0.up')], [[2, { packetsIn: 100, dropsLoss: 5, dropsQueue: 0 }], [3, { packetsIn: 60, dropsLoss: 1, dropsQueue: 0 }],
    [4, { packetsIn: 40, dropsLoss: 1, dropsQueue: 2 }]]);
});

/** Truth for 1..4 s: p0.up drops 10 % (second 3: 20 %), the other links nothing; p1.down has no row for second 4. */
function truth() {
  const rows = [];
  for (let second = 1; second <= 4; second += 1) {
    // The relay's clock is 0.3 s ahead of the media clock.
    const t = second + 0.3;
    rows.push({ t, link: 'p0.up', packetsIn: 100, dropsLoss: second === 3 ? 15 : 10, dropsQueue: second === 3 ? 5 : 0 });
    rows.push({ t, link: 'p1.up', packetsIn: 100, dropsLoss: 0, dropsQueue: 0 });
    rows.push({ t, link: 'p0.down', packetsIn: 100, dropsLoss: 0, dropsQueue: 0 });
    if (second < 4) rows.push({ t, link: 'p1.down', packetsIn: 90, dropsLoss: 0, dropsQueue: 0 });
  }
  return rows;
}

/** A page's entry: video loss after retransmission, audio loss, and the after-recovery loss of both. */
const entry = (t, peer, remote, videoResidualPct, audioLossPct, residualLossPct) => ({
  t, peer, remote,
  video: {
    recvKbps: 500, lossPct: 9, residualLossPct: videoResidualPct, retransmittedPacketsReceived: 8, retransmittedKbps: 90,
    fecPacketsReceived: 0,
  },
  audio: { lossPct: audioLossPct }, lossPct: 9, residualLossPct,
});

test('each timeline entry gets the wire loss of the flow it receives and what recovery took off it', () => {
  const timeline = withWireLoss([entry(2, 'p1', 'p0', 1, 9, 4), entry(3, 'p1', 'p0', 0, 21, 7), entry(2, 'p0', 'p1', 0, 0, 0),
    entry(4, 'p1', 'p0', 0, 10, 3)], truth(), ROUTES);
  const [p1At2, p1At3, p0At2, p1At4] = timeline;
  assert.equal(p1At2.wireLossPct, 10, 'route p0->p1: p0.up 10 %, p1.down 0 %');
  assert.equal(p1At2.video.recoveredLossPct, 9);
  assert.equal(p1At2.audio.recoveredLossPct, 1);
  assert.equal(p1At2.recoveredLossPct, 6);
  assert.equal(p1At2.video.recvKbps, 500, 'the page\'s fields stay');
  assert.equal(p1At3.wireLossPct, 20, 'random and queue drops');
  assert.equal(p1At3.audio.recoveredLossPct, -1, 'negative: the receiver counted more lost than the wire dropped (another packet mix)');
  assert.equal(p0At2.wireLossPct, 0, 'route p1->p0 is clean');
  assert.equal(p1At4.wireLossPct, null, 'a link of the route has no truth that second');
  assert.equal(p1At4.video.recoveredLossPct, null);
});

test('without truth (dummynet) or a route, the wire loss is null and the timeline keeps its entries', () => {
  const [a, b] = withWireLoss([entry(2, 'p1', 'p0', 1, 9, 4), entry(2, 'p2', 'p0', 1, 9, 4)], [], ROUTES);
  assert.equal(a.wireLossPct, null);
  assert.equal(b.wireLossPct, null);
  assert.equal(a.video.residualLossPct, 1);
});

test('the loss summary: link counters summed over the window and their ratio, per-flow statistics of the per-second values', () => {
  const rows = truth();
  const timeline = withWireLoss([1, 2, 3, 4].flatMap((t) => [entry(t, 'p1', 'p0', 1, 10, 4), entry(t, 'p0', 'p1', 0, 0, 0)]), rows, ROUTES);
  const { links, flows } = lossSummary({ truth: rows, timeline, routes: ROUTES, windowS: [1, 4] });
  assert.deepEqual(links['p0.up'], { packetsIn: 300, dropsLoss: 35, dropsQueue: 5, wireLossPct: 13.333 }, 'seconds 2..4; second 1 is warm-up');
  assert.equal(links['p1.down'].packetsIn, 180);
  assert.deepEqual(Object.keys(flows), ['p0->p1', 'p1->p0']);
  const p0ToP1 = flows['p0->p1'];
  assert.equal(p0ToP1.wireLossPct.n, 2, 'second 4 has no wire loss (p1.down unread)');
  assert.equal(p0ToP1.wireLossPct.mean, 15);
  assert.equal(p0ToP1['video.residualLossPct'].mean, 1);
  assert.equal(p0ToP1['video.lossPct'].mean, 9);
  assert.equal(p0ToP1['video.recoveredLossPct'].mean, 14);
  assert.equal(p0ToP1['audio.recoveredLossPct'].mean, 5);
  assert.equal(p0ToP1['video.retransmittedPacketsReceived'].mean, 8);
  assert.equal(p0ToP1['video.retransmittedKbps'].mean, 90);
  assert.equal(flows['p1->p0'].wireLossPct.mean, 0);
});
