import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderGridPaths } from '../../orchestrator/report/render-grid-paths.js';
import { pathSummary } from '../../orchestrator/emulators/node-relay/path-probe.js';

test('a probe\'s summary: min and median of the round trips that came back, loss of those sent', () => {
  assert.deepEqual(pathSummary({ from: 'a', to: 'b', sent: 4, rttMs: [0.3, 0.1, 0.2] }),
    { from: 'a', to: 'b', probes: 4, received: 3, rttMsMin: 0.1, rttMsMedian: 0.2, lossPct: 25 });
  assert.deepEqual(pathSummary({ from: 'a', to: 'b', sent: 4, rttMs: [] }), { from: 'a', to: 'b', probes: 4, received: 0, rttMsMin: null, rttMsMedian: null, lossPct: 100 });
});

test('the report names each probed path and says the configured delays come on top; nothing without paths', () => {
  const html = renderGridPaths({ environment: { grid: { emulation: 'node relays', paths: [
    { from: 'n1', to: 'n2', probes: 20, received: 19, rttMsMin: 0.21, rttMsMedian: 0.24, lossPct: 5 }, { from: '<x>', to: 'n1' }] } } });
  assert.match(html, /<b>n1 → n2<\/b>: RTT min 0\.21 ms, median 0\.24 ms, loss 5\.0 % \(19 of 20 probes\)/);
  assert.match(html, /configured delays are added on top/);
  assert.match(html, /&lt;x&gt; → n1<\/b>: RTT min — ms/, 'a hand-edited row renders escaped');
  assert.equal(renderGridPaths({ environment: { grid: { emulation: 'central relay' } } }), '');
  assert.equal(renderGridPaths({}), '');
});
