// docs/catalog.md: generated from the scenario files (orchestrator/report/render-catalog.js, `npm run catalog`).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_CATALOG, shippedCatalog } from '../../orchestrator/commands/catalog.js';
import { listScenarios, loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { SOURCES, renderCatalog } from '../../orchestrator/report/render-catalog.js';
import { runCli, tempDir } from '../helpers/cli.js';

/** Writes scenario files into a fresh directory and loads them as the command does. */
function loadFixtures(files) {
  const dir = tempDir('wtb-catalog-');
  return files.map((scenario) => {
    const file = path.join(dir, `${scenario.name}.json`);
    writeFileSync(file, JSON.stringify(scenario));
    return loadScenario(file);
  });
}

const STEPS = {
  name: 'fixture-steps',
  description: 'Cap steps and a delay ramp',
  group: 'fixtures',
  durationS: 240,
  codec: 'vp9',
  devices: { p1: { width: 640, height: 480, fps: 30, cpuQuotaCores: 0.3 } },
  network: {
    link: { rateKbps: 1000, queueMs: 500, oneWayDelayMs: 50, lossPct: 10 },
    schedule: [
      { at: 60, links: 'uplinks', set: { rateKbps: 3000 } },
      { at: 120, links: ['p0.up'], ramp: { field: 'oneWayDelayMs', from: 0, to: 250, durationS: 60, shape: 'exponential' } },
    ],
  },
  reference: {
    source: 'J16 §8-2-1, figure 8-4',
    notes: 'The rate settles 16 s after the increase.',
    metrics: { utilization: { mean: 0.77 }, timeToSteadyS: { byChangeAtS: { 60: 16 } }, 'video.recvKbps': { mean: 1150, sd: 129 } },
  },
};
const FLOWS = {
  name: 'fixture-flows',
  description: 'A call, TCP and a data channel across a bottleneck',
  durationS: 120,
  warmupS: 5,
  browsers: { p1: 'firefox' },
  network: { bottleneck: { rateKbps: 2000, queuePackets: 50 } },
  mainCall: { direction: 'forward', startS: 5 },
  flows: [
    { name: 'media-2', kind: 'call', direction: 'forward', startS: 0, pauses: [{ atS: 40, durationS: 20 }] },
    { name: 'tcp', kind: 'tcp', startS: 60, stopS: 100 },
    { name: 'bulk', kind: 'data', startS: 10 },
  ],
  reference: null,
};

test('the catalog states each scenario\'s parameters: links, schedule, flows, codec, devices, browsers, peers', () => {
  const markdown = renderCatalog(loadFixtures([STEPS, FLOWS]));
  for (const line of [
    '### `fixture-steps`', '- **Group**: `fixtures` (`npm run scenario fixtures` runs every member)', '- **Duration**: 240 s (4:00), measured after a 10 s warm-up',
    '- **Network**: every uplink: cap 1000 kbps, queue 500 ms, delay 50 ms one way, loss 10 %',
    '  - 1:00 uplinks: cap 3000 kbps', '  - 2:00–3:00 `p0.up`: 0 → 250 ms one-way delay, exponential, re-set every 0.5 s',
    '- **Codec**: vp9 on every connection', '- **Devices**: p1: capture at most 640×480, 30 fps, 0.3 of a core',
    '### `fixture-flows`', '- **Peers**: 2, full mesh (4 with the extra calls\' peers)',
    '- **Network**: bottleneck (both directions): cap 2000 kbps, queue 50 packets',
    '- **Main call**: one-way (p0 sends, p1 only RTCP), media from 0:05',
    '  - `media-2` (call) 0:00–2:00: one-way, paused 0:40–1:00', '  - `tcp` (tcp) 1:00–1:40: iperf3 TCP forward',
    '  - `bulk` (data) 0:10–2:00: RTCDataChannel bulk transfer p0 → p1', '- **Browsers**: p1: firefox (the others run the run\'s --browser)',
  ]) assert.ok(markdown.includes(`${line}\n`), `missing line: ${line}\n---\n${markdown}`);
});

test('the catalog gives each published figure in its shown unit, per schedule change, and cites the paper in full', () => {
  const markdown = renderCatalog(loadFixtures([STEPS, FLOWS]));
  assert.ok(markdown.includes('| Utilisation (%) | `utilization` | 77 | — |'), 'a fraction shown in %');
  assert.ok(markdown.includes('| Time to steady rate (s) | `timeToSteadyS` | 16 (16 after the change at 1:00) | — |'));
  assert.ok(markdown.includes('| Video rate (kbps) | `video.recvKbps` | 1150 | 129 |'));
  assert.ok(markdown.includes('**Published result**: J16 §8-2-1, figure 8-4 (J16: see [Sources](#sources)).'));
  assert.ok(markdown.includes('The rate settles 16 s after the increase.'), 'the reference notes');
  assert.ok(markdown.includes('**Published result**: none; the scenario has no reference.'));
  assert.match(markdown, /## J16\n\nB\. A\. Jansen, \*Performance Analysis of WebRTC-based Video Conferencing\*, MSc thesis, Delft University of Technology, 2016/);
  assert.match(markdown, /## Without a published result\n\n### `fixture-flows`/);
  for (const { abbr, citation } of SOURCES) assert.ok(markdown.includes(`- **${abbr}**: ${citation}.`), abbr);
});

test('the catalog lists every scenario once in its index, whatever order they were loaded in', () => {
  const scenarios = loadFixtures([STEPS, FLOWS]);
  const markdown = renderCatalog(scenarios);
  assert.equal(renderCatalog([...scenarios].reverse()), markdown);
  assert.equal(markdown.match(/^\| \[`fixture-steps`\]\(#fixture-steps\) \| `fixtures` \| J16 \|/gm)?.length, 1);
  assert.equal(markdown.match(/^\| \[`fixture-flows`\]/gm)?.length, 1);
});

test('docs/catalog.md is up to date with orchestrator/scenarios/*.json (run `npm run catalog` and commit it)', () => {
  const shipped = listScenarios();
  assert.ok(shipped.length > 0);
  const markdown = shippedCatalog();
  for (const { name } of shipped) assert.ok(markdown.includes(`### \`${name}\`\n`), name);
  assert.equal(readFileSync(DEFAULT_CATALOG, 'utf8'), markdown, 'docs/catalog.md is stale: run `npm run catalog` and commit it');
});

test('catalog --check exits 1 naming the fix when the file is stale, and writes nothing', async () => {
  const out = path.join(tempDir('wtb-catalog-'), 'catalog.md');
  writeFileSync(out, '# old\n');
  const stale = await runCli(['catalog', '--check', '--out', out], { timeoutMs: 60_000 });
  assert.equal(stale.code, 1, stale.stderr);
  assert.match(stale.stderr, /catalog\.md is stale: .*run `npm run catalog`/);
  assert.equal(readFileSync(out, 'utf8'), '# old\n');
  const written = await runCli(['catalog', '--out', out], { timeoutMs: 60_000 });
  assert.equal(written.code, 0, written.stderr);
  const fresh = await runCli(['catalog', '--check', '--out', out], { timeoutMs: 60_000 });
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.match(fresh.stdout, /is up to date/);
});
