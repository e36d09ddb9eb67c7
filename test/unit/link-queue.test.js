import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LinkQueue } from '../../orchestrator/emulators/relay/link-queue.js';

/** @param {Partial<import('../../orchestrator/lib/network/link-model.js').LinkParams>} overrides */
const params = (overrides = {}) => ({
  rateKbps: null, queuePackets: null, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null, trace: null, ...overrides,
});

/** Polls the link at every event time up to endMs (as the relay's timer would) and collects deliveries. */
function drain(link, endMs) {
  const delivered = [];
  for (let nextMs = link.nextEventMs(); nextMs <= endMs; nextMs = link.nextEventMs()) delivered.push(...link.poll(nextMs));
  link.poll(endMs);
  return delivered;
}

test('an unlimited link without delay delivers at once', () => {
  const link = new LinkQueue(params());
  assert.equal(link.enqueue('a', 100, 5), null);
  assert.deepEqual(link.poll(5), [{ packet: 'a', atMs: 5 }]);
  assert.equal(link.nextEventMs(), Infinity);
});

test('propagation delay holds packets until arrival + oneWayDelayMs', () => {
  const link = new LinkQueue(params({ oneWayDelayMs: 50 }));
  link.enqueue('a', 100, 10);
  assert.equal(link.nextEventMs(), 60);
  assert.deepEqual(link.poll(59.9), []);
  assert.deepEqual(link.poll(61), [{ packet: 'a', atMs: 60 }]);
});

test('packets are serialized at rateKbps (bits / kbps = ms), then delayed', () => {
  const link = new LinkQueue(params({ rateKbps: 1000, queuePackets: 10, oneWayDelayMs: 10 }));
  for (const name of ['a', 'b', 'c']) link.enqueue(name, 125, 0); // 1000 bits = 1 ms each
  link.enqueue('d', 125, 20); // arrives to an idle link
  assert.deepEqual(drain(link, 100).map(({ atMs }) => atMs), [11, 12, 13, 31]);
});

test('drop-tail by packets counts the packet on the wire', () => {
  const link = new LinkQueue(params({ rateKbps: 8, queuePackets: 2 }));
  assert.deepEqual([1, 2, 3, 4].map((n) => link.enqueue(n, 100, 0)), [null, null, 'queue', 'queue']);
  link.poll(100); // first one left (100 bytes at 8 kbps = 100 ms): room for one more
  assert.deepEqual([5, 6].map((n) => link.enqueue(n, 100, 100)), [null, 'queue']);
  assert.deepEqual(link.totals(), {
    packetsIn: 6, bytesIn: 600, packetsOut: 1, bytesOut: 100, dropsQueue: 3, dropsLoss: 0,
    queuedPackets: 2, queuedBytes: 200, inFlightPackets: 0,
  });
});

test('a queueMs limit is bytes at the current rate and follows rate changes', () => {
  // 80 kbps = 10 bytes/ms, so 100 ms = 1000 bytes.
  const link = new LinkQueue(params({ rateKbps: 80, queueMs: 100 }));
  assert.deepEqual([1, 2, 3, 4].map((n) => link.enqueue(n, 300, 0)), [null, null, null, 'queue']);
  link.configure(params({ rateKbps: 160, queueMs: 100 }), 0); // now 2000 bytes
  assert.deepEqual([5, 6, 7, 8].map((n) => link.enqueue(n, 300, 0)), [null, null, null, 'queue']);
});

test('an empty queue accepts a packet larger than the byte limit', () => {
  const link = new LinkQueue(params({ rateKbps: 80, queueMs: 10 })); // 100 bytes
  assert.deepEqual([1, 2].map((n) => link.enqueue(n, 1228, 0)), [null, 'queue']);
});

test('a rate change keeps queued packets and serves the rest at the new rate', () => {
  // 8 kbps = 1 byte/ms: departures at 100, 200, 300.
  const link = new LinkQueue(params({ rateKbps: 8, queuePackets: 10 }));
  for (const name of ['a', 'b', 'c']) link.enqueue(name, 100, 0);
  // At 50 ms half of 'a' is sent; its remaining 400 bits take 25 ms at 16 kbps, the others 50 ms each.
  link.configure(params({ rateKbps: 16, queuePackets: 1 }), 50);
  assert.deepEqual(drain(link, 1000), [{ packet: 'a', atMs: 75 }, { packet: 'b', atMs: 125 }, { packet: 'c', atMs: 175 }]);
});

test('lifting the rate cap releases the queue at once', () => {
  const link = new LinkQueue(params({ rateKbps: 8, queuePackets: 10 }));
  for (const name of ['a', 'b', 'c']) link.enqueue(name, 100, 0);
  link.configure(params(), 30);
  assert.deepEqual(link.poll(30).map(({ packet }) => packet), ['a', 'b', 'c']);
});

test('a delay change never reorders: packets already propagating keep their time', () => {
  const link = new LinkQueue(params({ oneWayDelayMs: 100 }));
  link.enqueue('a', 100, 0);
  link.configure(params({ oneWayDelayMs: 10 }), 20);
  link.enqueue('b', 100, 20);
  link.enqueue('c', 100, 200);
  assert.deepEqual(drain(link, 1000), [{ packet: 'a', atMs: 100 }, { packet: 'b', atMs: 100 }, { packet: 'c', atMs: 210 }]);
});

test('jitter spreads delays within ±jitterMs without reordering', () => {
  const link = new LinkQueue(params({ oneWayDelayMs: 50, jitterMs: 10 }), { seed: 1 });
  const sentMs = new Map();
  for (let i = 0; i < 1000; i++) {
    sentMs.set(i, i * 20); // sparse enough that the no-reordering clamp never binds
    link.enqueue(i, 100, i * 20);
  }
  const delivered = drain(link, 100_000);
  const delaysMs = delivered.map(({ packet, atMs }) => atMs - sentMs.get(packet));
  assert.deepEqual(delivered.map(({ packet }) => packet), [...sentMs.keys()]);
  assert.ok(Math.min(...delaysMs) >= 40 && Math.max(...delaysMs) <= 60, 'delays within 50 ± 10 ms');
  assert.ok(Math.max(...delaysMs) - Math.min(...delaysMs) > 15, 'delays actually vary');
  const meanMs = delaysMs.reduce((sum, d) => sum + d, 0) / delaysMs.length;
  assert.ok(Math.abs(meanMs - 50) < 1, `mean delay ${meanMs}`);
});

test('dense traffic with jitter is delivered in order', () => {
  const link = new LinkQueue(params({ oneWayDelayMs: 50, jitterMs: 20 }), { seed: 2 });
  for (let i = 0; i < 500; i++) link.enqueue(i, 100, i * 0.5);
  const delivered = drain(link, 10_000);
  assert.deepEqual(delivered.map(({ packet }) => packet), [...Array(500).keys()]);
  assert.ok(delivered.length > 0, 'delivered: nothing to check');
  assert.ok(delivered.every(({ atMs }, i) => i === 0 || atMs >= delivered[i - 1].atMs));
});

test('random loss drops lossPct of packets, reproducibly per seed and link name', () => {
  const pattern = (seed, name) => {
    const link = new LinkQueue(params({ lossPct: 5 }), { seed, name });
    return Array.from({ length: 20_000 }, (_, i) => link.enqueue(i, 100, i) === 'loss');
  };
  const drops = pattern(7, 'p0.up');
  const lossPct = (100 * drops.filter(Boolean).length) / drops.length;
  assert.ok(lossPct > 4.5 && lossPct < 5.5, `loss ${lossPct} %`); // binomial sd 0.15 %
  assert.deepEqual(pattern(7, 'p0.up'), drops);
  assert.notDeepEqual(pattern(7, 'p1.up'), drops);
});

test('Gilbert-Elliott loss keeps the loss rate and yields the mean burst length', () => {
  const link = new LinkQueue(params({ lossPct: 10, lossBurst: 4 }), { seed: 3 });
  const drops = Array.from({ length: 100_000 }, (_, i) => link.enqueue(i, 100, i) === 'loss');
  const bursts = drops.filter((lost, i) => lost && !drops[i - 1]).length;
  const lost = drops.filter(Boolean).length;
  assert.ok(Math.abs(lost / drops.length - 0.1) < 0.01, `loss ${lost / drops.length}`);
  assert.ok(Math.abs(lost / bursts - 4) < 0.3, `mean burst ${lost / bursts}`);
});

test('truth rows count per second, with arrival-second drops and delivery-second output', () => {
  const link = new LinkQueue(params({ rateKbps: 8, queuePackets: 2, oneWayDelayMs: 500 }), { originMs: 1000, nowMs: 1000, seed: 4 });
  // t=1 covers 1000-2000 ms: three arrivals, one dropped; departures at 1100 and 1200, deliveries at 1600 and 1700.
  for (const name of ['a', 'b', 'c']) link.enqueue(name, 100, 1000);
  // Arrives in t=1, departs at 2000 and is delivered at 2500, so it is output in t=2.
  link.enqueue('d', 100, 1900);
  drain(link, 3500);
  assert.deepEqual(link.takeTruth(3500), [
    { t: 1, packetsIn: 4, bytesIn: 400, packetsOut: 2, bytesOut: 200, dropsQueue: 1, dropsLoss: 0,
      queueDelayMsP50: 150, queueDelayMsP95: 195, oneWayDelayMsP50: 650, oneWayDelayMsP95: 695 },
    { t: 2, packetsIn: 0, bytesIn: 0, packetsOut: 1, bytesOut: 100, dropsQueue: 0, dropsLoss: 0,
      queueDelayMsP50: 100, queueDelayMsP95: 100, oneWayDelayMsP50: 600, oneWayDelayMsP95: 600 },
  ]);
  assert.deepEqual(link.takeTruth(3500), [], 'seconds are reported once');
  assert.deepEqual(link.takeTruth(4000).map(({ t, packetsIn, oneWayDelayMsP50 }) => ({ t, packetsIn, oneWayDelayMsP50 })),
    [{ t: 3, packetsIn: 0, oneWayDelayMsP50: null }]);
});

test('a sender reports when each packet actually left: a late send counts in its second and in its one-way delay', () => {
  const link = new LinkQueue(params({ oneWayDelayMs: 40 }), { originMs: 0, nowMs: 0 });
  link.enqueue('a', 100, 950);
  link.enqueue('b', 120, 955);
  const handed = [];
  link.deliver(996, (packet, atMs, arrivalMs, sizeBytes) => handed.push({ packet, atMs, arrivalMs, sizeBytes }));
  assert.deepEqual(handed, [
    { packet: 'a', atMs: 990, arrivalMs: 950, sizeBytes: 100 },
    { packet: 'b', atMs: 995, arrivalMs: 955, sizeBytes: 120 },
  ]);
  link.delivered(100, 950, 996); // 6 ms late, still in the first second
  link.delivered(120, 955, 1003); // 8 ms late: it left in the second one
  const rows = link.takeTruth(2000)
    .map(({ t, packetsOut, bytesOut, oneWayDelayMsP50 }) => ({ t, packetsOut, bytesOut, oneWayDelayMsP50 }));
  assert.deepEqual(rows, [
    { t: 1, packetsOut: 1, bytesOut: 100, oneWayDelayMsP50: 46 },
    { t: 2, packetsOut: 1, bytesOut: 120, oneWayDelayMsP50: 48 },
  ]);
  assert.equal(link.totals().packetsOut, 2);
});

test('truth folded early (one link per turn, as the relay does after each second) gives the same rows as taken at once', () => {
  /** @param {(link: LinkQueue<number>) => void} between  what happens to the link before its rows are taken */
  const rowsOf = (between) => {
    const linkParams = params({ rateKbps: 1000, queuePackets: 20, oneWayDelayMs: 30, jitterMs: 5, lossPct: 5 });
    const link = new LinkQueue(linkParams, { originMs: 0, nowMs: 0, seed: 9 });
    // As the relay drives it: due events first, then each arrival in time order; folded once, mid-run.
    for (let i = 0; i < 3000; i++) {
      if (i === 1734) between(link);
      drain(link, i * 1.5);
      link.enqueue(i, 200, i * 1.5);
    }
    drain(link, 6000);
    return link.takeTruth(6000);
  };
  const folded = rowsOf((link) => link.foldTruth(2600.5));
  assert.equal(folded.length, 6, 'every second of the run, folded early or not');
  assert.ok(folded[0].packetsOut > 0 && folded[0].oneWayDelayMsP95 !== null, JSON.stringify(folded[0]));
  assert.deepEqual(folded, rowsOf(() => {}));
});

test('truth totals agree with what went in and out over many seconds', () => {
  const link = new LinkQueue(params({ rateKbps: 1000, queuePackets: 20, oneWayDelayMs: 30, lossPct: 10 }), { seed: 5 });
  let accepted = 0;
  for (let i = 0; i < 5000; i++) if (link.enqueue(i, 200, i * 1.5) === null) accepted++; // offered 1067 kbps > 1000
  const delivered = drain(link, 20_000).length;
  const rows = link.takeTruth(20_000);
  const sum = (field) => rows.reduce((total, row) => total + row[field], 0);
  assert.equal(rows.length, 20);
  assert.equal(sum('packetsIn'), 5000);
  assert.equal(sum('packetsOut'), delivered);
  assert.equal(delivered, accepted);
  assert.equal(sum('dropsLoss') + sum('dropsQueue'), 5000 - delivered);
  assert.ok(sum('dropsQueue') > 0 || sum('dropsLoss') > 400);
});
