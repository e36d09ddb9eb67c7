import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browserCpuPct, nodeResources, saturatedNodesWarning } from '../../orchestrator/lib/devices/node-resources.js';

test('a browser\'s CPU is its processes\' CPU time since the last reading over the time between: a new process counts whole, a gone one not', () => {
  const previous = { atMs: 1000, processes: [{ id: 1, cpuTime: 2 }, { id: 2, cpuTime: 5 }, { id: 3, cpuTime: 1 }] };
  const current = { atMs: 3000, processes: [{ id: 1, cpuTime: 2.5 }, { id: 2, cpuTime: 5.9 }, { id: 4, cpuTime: 0.2 }] };
  assert.equal(browserCpuPct(previous, current), 80); // (0.5 + 0.9 + 0.2) s over 2 s
  assert.equal(browserCpuPct(current, { ...current, atMs: 3000 }), null);
  // A pid reused with a smaller CPU time is not negative time.
  assert.equal(browserCpuPct(previous, { atMs: 2000, processes: [{ id: 2, cpuTime: 0.1 }] }), 0);
});

const rows = (peer, cpuPcts, heap = 10) => cpuPcts.map((cpuPct, i) => ({ t: i + 1, peer, cpuPct, jsHeapMb: heap + i, processCount: 5 }));

test('a node is saturated when its browsers together keep 90 % of its cores busy in over 20 % of the measured seconds', () => {
  const grid = nodeResources({
    rows: [...rows('p0', [100, 100, 100, 100]), ...rows('p1', [90, 95, 20, 10]), ...rows('p2', [50, 50, 50, 50])],
    nodeOfPeer: { p0: 'n1', p1: 'n1', p2: 'n2' },
    nodes: { n2: { uri: 'http://b:5555', cores: 2 }, n1: { uri: 'http://a:5555', cores: 2 } },
    windowS: [0, 4], unavailable: null,
  });
  assert.deepEqual(Object.keys(grid.nodes), ['n1', 'n2']);
  assert.deepEqual(grid.nodes.n1.peers, ['p0', 'p1']);
  assert.deepEqual(grid.nodes.n1.saturation, { share: 0.5, saturated: true, thresholdPct: 180, cores: 2 });
  assert.equal(grid.nodes.n1.cpuPct.median, 155); // the seconds sum to 190, 195, 120, 110
  assert.equal(grid.nodes.n2.saturation.saturated, false);
  assert.equal(grid.browsers.p1.node, 'n1');
  assert.equal(grid.browsers.p1.peakJsHeapMb, 13);
  assert.equal(grid.browsers.p2.cpuPct.mean, 50);
  const warning = saturatedNodesWarning(grid);
  assert.match(warning, /^grid node saturated: n1 \(p0, p1\) used at least 180 % of CPU \(2 cores × 100 %\) in 50 % of the measured seconds/);
  assert.doesNotMatch(warning, /n2/);
});

test('only the measurement window counts; a node of unknown cores is never called saturated; no saturated node, no warning', () => {
  const grid = nodeResources({
    rows: rows('p0', [200, 200, 10, 10]), nodeOfPeer: { p0: 'n1' }, nodes: { n1: { uri: 'http://a:5555', cores: null } }, windowS: [2, 4], unavailable: null,
  });
  assert.equal(grid.browsers.p0.cpuPct.n, 2);
  assert.equal(grid.browsers.p0.cpuPct.mean, 10);
  assert.equal(grid.nodes.n1.saturation.saturated, false);
  assert.equal(saturatedNodesWarning(grid), null);
  assert.equal(saturatedNodesWarning(undefined), null);
});

test('a browser\'s memory is its node\'s reading of all its processes (RSS, PSS) where there is one, else its page\'s heap and why', () => {
  const read = (peer, rssMbs) => rssMbs.map((rssMb, i) => ({
    t: i + 1, peer, cpuPct: 50, rssMb, pssMb: rssMb === null ? null : rssMb / 2, jsHeapMb: 10, processCount: 6,
  }));
  const grid = nodeResources({
    rows: [...read('p0', [400, 420, 460, null]), ...read('p1', [300, 310, null, 330]), ...rows('p2', [50, 50])],
    nodeOfPeer: { p0: 'n1', p1: 'n1', p2: 'n2' },
    nodes: { n1: { uri: 'http://a:5555', cores: 2 }, n2: { uri: 'http://b:5555', cores: 2 } },
    windowS: [0, 4], unavailable: null,
    memory: { unavailable: null, errors: { p2: 'its node answered for none of its 6 processes' } },
  });
  assert.deepEqual(grid.browsers.p0.memory, { source: 'proc', why: null });
  assert.equal(grid.browsers.p0.rssMb.median, 420);
  assert.equal(grid.browsers.p0.rssMb.n, 3, 'a second without a reading is not a zero');
  assert.equal(grid.browsers.p0.peakRssMb, 460);
  assert.equal(grid.browsers.p0.pssMb.median, 210);
  assert.deepEqual(grid.browsers.p2.memory, { source: 'js-heap', why: 'its node answered for none of its 6 processes' });
  assert.equal(grid.browsers.p2.peakRssMb, null);
  assert.equal(grid.browsers.p2.peakJsHeapMb, 11);
  // n1's sum only in the seconds both its browsers were read: 1 and 2.
  assert.deepEqual([grid.nodes.n1.rssMb.n, grid.nodes.n1.rssMb.median], [2, 715]); // 400 + 300, 420 + 310
  assert.equal(grid.nodes.n2.rssMb.n, 0);
  const noRelay = nodeResources({
    rows: rows('p0', [50]), nodeOfPeer: { p0: 'n1' }, nodes: { n1: { uri: 'http://a:5555', cores: 2 } }, windowS: [0, 4], unavailable: null,
    memory: { unavailable: 'no node relay to read the browsers\' memory', errors: {} },
  });
  assert.deepEqual(noRelay.browsers.p0.memory, { source: 'js-heap', why: 'no node relay to read the browsers\' memory' });
});
