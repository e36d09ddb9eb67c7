import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderRunReport } from '../../orchestrator/report/render-run.js';
import { nodeResources } from '../../orchestrator/lib/devices/node-resources.js';
import { makeResult } from '../fixtures/results/make-result.js';

const clock = (offsetMs, errorMs) => ({ offsetMs, errorMs, rttMs: 2 * errorMs, samples: 15, atMs: 0, peer: 'p0' });

/** A result of a run whose p0 ran on node n1 (saturated) and p1 on n2. */
function gridResult() {
  const result = makeResult('static');
  result.environment.grid = {
    url: 'http://hub:4444', emulation: 'central relay',
    peers: {
      p0: { node: 'n1', uri: 'http://10.0.0.1:5555', cores: 2, browserVersion: '156.0.8078.108', sessionId: 'a' },
      p1: { node: 'n2', uri: 'http://10.0.0.2:5555', cores: 4, browserVersion: '156.0.8078.108', sessionId: 'b' },
    },
    clocks: {
      n1: { start: clock(0.12, 0.35), end: clock(0.2, 0.4), driftMs: 0.08 }, n2: { start: clock(-3.5, 1.25), end: null, driftMs: null },
    },
  };
  const rows = [1, 2, 3, 4].flatMap((t) => [
    { t, peer: 'p0', cpuPct: 190, rssMb: 500 + t, pssMb: 250, jsHeapMb: 12, processCount: 6 },
    { t, peer: 'p1', cpuPct: 60, rssMb: null, pssMb: null, jsHeapMb: 9, processCount: 6 },
  ]);
  result.resources = { ...result.resources, grid: nodeResources({
    rows, nodeOfPeer: { p0: 'n1', p1: 'n2' }, nodes: { n1: { uri: 'http://10.0.0.1:5555', cores: 2 }, n2: { uri: 'http://10.0.0.2:5555', cores: 4 } },
    windowS: [0, 4], unavailable: null, memory: { unavailable: null, errors: { p1: 'its node answered for none of its 6 processes' } },
  }) };
  return result;
}

test('a Grid run\'s report has the placement table: node, URI, cores, browser, clock offset ± error, CPU; a saturated node is named', () => {
  const html = renderRunReport(gridResult());
  const row = html.match(/<tr data-peer="p1">.*?<\/tr>/)?.[0] ?? '';
  for (const cell of ['n2', 'http://10.0.0.2:5555', '<td>4</td>', '156.0.8078.108', '−3.50 ± 1.25', '<td>60</td>']) assert.ok(row.includes(cell), `p1's row has ${cell}: ${row}`);
  assert.match(html, /<tr data-peer="p0">.*0\.12 ± 0\.35.*0\.20 ± 0\.40/);
  assert.match(html, /<tr data-node="n1" class="cpu-limited">.*\(saturated\)/);
  assert.doesNotMatch(html, /<tr data-node="n2" class="cpu-limited">/);
  assert.match(html, /Grid node n1 saturated:<\/b> in 100\.0 % of the measured seconds its browsers \(p0\) together used at least 180 % of CPU \(2 cores × 100 %\)/);
  assert.doesNotMatch(html, /Grid node n2 saturated/);
});

test('the placement table shows each browser\'s memory in MB with its source: its node\'s /proc, else the page\'s heap and why', () => {
  const html = renderRunReport(gridResult());
  assert.match(html, /<tr data-peer="p0">.*<td>RSS 503 · peak 504, PSS 250<\/td><td>its processes on its node \(\/proc\)<\/td><\/tr>/);
  assert.match(html, /<tr data-peer="p1">.*<td>JS heap peak 9\.0<\/td><td>its page's JS heap only: its node answered for none of its 6 processes<\/td><\/tr>/);
  assert.match(html, /<tr data-node="n1" class="cpu-limited">.*<td>503 · 504<\/td><\/tr>/);
});

test('a run without --grid has no Grid section', () => {
  assert.doesNotMatch(renderRunReport(makeResult('static')), /Grid placement/);
});
