// The committed reproduction (docs/reproduction/): README.md is what runs.json renders to, and every figure on it is
// the median of the passed runs its row cites, recomputed here from runs.json without the page's own code.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { REPRODUCTIONS } from '../../orchestrator/lib/scenario/reproductions.js';
import { REPO_ROOT } from '../../orchestrator/lib/system/paths.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { PUBLISHED_KIND, publishReproduction } from '../../orchestrator/suite/publish-reproduction.js';
import { renderReproductionMarkdown } from '../../orchestrator/suite/render-reproduction-md.js';
import { format } from '../../orchestrator/suite/render-reproduction.js';
import { referencesOf } from '../../orchestrator/suite/reproduction-runs.js';
import { makeResult } from '../fixtures/results/make-result.js';

const DIR = path.join(REPO_ROOT, 'docs', 'reproduction');
const published = JSON.parse(readFileSync(path.join(DIR, 'runs.json'), 'utf8'));
const readme = readFileSync(path.join(DIR, 'README.md'), 'utf8');

/** @param {number[]} values */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

test('docs/reproduction/README.md is what its runs.json renders to (npm run reproduce -- --publish)', () => {
  assert.equal(published.kind, PUBLISHED_KIND);
  assert.ok(published.runs.length > 0, 'runs.json has runs');
  const needed = new Set(published.runs.map((/** @type {any} */ run) => run.scenario));
  const scenarios = new Set(REPRODUCTIONS.flatMap((t) => t.rows.map((r) => r.scenario)));
  const expected = renderReproductionMarkdown({ runs: published.runs, references: referencesOf(scenarios), planned: published.planned });
  assert.ok(needed.size > 0);
  assert.equal(readme, expected, 'stale: publish again from the suite directory the runs came from');
});

test('the page counts the runs per scenario from runs.json, most first', () => {
  /** @type {Map<string, number>} */
  const perScenario = new Map();
  for (const run of published.runs) perScenario.set(run.scenario, (perScenario.get(run.scenario) ?? 0) + 1);
  const counts = [...perScenario.values()];
  const most = Math.max(...counts);
  const line = readme.split('\n').find((text) => text.startsWith('- Runs: '));
  assert.ok(line, 'a "- Runs:" line');
  assert.ok(line.startsWith(`- Runs: ${published.runs.length} of the ${published.planned} planned (${most} run${most === 1 ? '' : 's'} for `
    + `${counts.filter((n) => n === most).length} scenario`), line);
  for (const n of new Set(counts)) if (n !== most) assert.match(line, new RegExp(`, ${n} for ${counts.filter((c) => c === n).length}[,;]`), line);
});

test('every figure on the committed page is the median of the passed runs its row cites', () => {
  const baselineOf = new Map(REPRODUCTIONS.flatMap((t) => t.rows.map((r) => [`${t.citation}|${r.scenario}`, r.baseline])));
  let table = '';
  /** @type {string[]} */
  let keys = [];
  let checked = 0;
  for (const line of readme.split('\n')) {
    if (line.startsWith('## ')) table = line.slice(3).split(':')[0];
    if (line.startsWith('| Row |')) keys = line.split(' | ').slice(1).map((head) => /`([^`]+)`/.exec(head)?.[1] ?? '');
    const row = /^\| [^|]*? `([^`]+)` — runs ([^:]*):/.exec(line);
    if (!row) continue;
    const [, scenario, citedText] = row;
    const cited = citedText === 'none yet' ? [] : citedText.split(', ').map((c) => Number.parseInt(c, 10));
    const passed = (/** @type {string} */ name) => published.runs.filter((/** @type {any} */ r) => r.scenario === name && r.status === 'passed');
    const ofScenario = published.runs.filter((/** @type {any} */ r) => r.scenario === scenario);
    assert.deepEqual(ofScenario.map((/** @type {any} */ r) => r.repetition), cited, `${scenario}: the row cites exactly the runs runs.json has`);
    const cells = line.split(' | ').slice(1);
    keys.forEach((key, i) => {
      const shown = /^\*\*([^*]+)\*\*/.exec(cells[i])?.[1];
      if (!key || shown === undefined) return;
      const of = (/** @type {string} */ name, /** @type {string} */ p) => median(
        passed(name).map((/** @type {any} */ r) => r.values[p]).filter(Number.isFinite));
      const value = key.startsWith('×')
        ? of(scenario, key.slice(1)) / of(String(baselineOf.get(`${table}|${scenario}`)), key.slice(1))
        : of(scenario, key);
      assert.equal(shown, format(key, value), `${table}, ${scenario}, ${key}`);
      checked += 1;
    });
  }
  assert.ok(checked > 0, 'the page shows at least one measured figure');
});

/** A quantile of values as the page takes it (linear between ranks). @param {number[]} values @param {number} p */
function quantile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  return sorted[Math.floor(rank)] + (sorted[Math.ceil(rank)] - sorted[Math.floor(rank)]) * (rank - Math.floor(rank));
}

/**
 * How far the host could have moved one run's figure, by docs/reproductions.md's rule, read from the record alone;
 * null when the record did not measure it, undefined for a figure the rule does not grade.
 * @param {any} run @param {string} key
 */
function hostBound(run, key) {
  const crossings = /** @type {Record<string, number>} */ ({ rttMs: 2, 'bottleneck.queueDelayMs': 1 })[key];
  if (crossings) {
    const relay = run.hostEvidence?.relay;
    if (relay) {
      const sum = relay.lateByMs
        .reduce((/** @type {number} */ a, /** @type {any} */ b) => a + b.seconds * Math.min(b.upToMs, relay.lateMaxMs), 0);
      return relay.lateS ? Math.min(crossings * 3 * sum / (relay.windowS[1] - relay.windowS[0]), crossings * relay.lateMaxMs) : 0;
    }
    const old = run.behindSeconds;
    if (old?.seconds === 0) return 0;
    if (old) return Math.min(crossings * 3 * old.seconds * old.lateMaxMs / old.measuredSeconds, crossings * old.lateMaxMs);
    return run.emulatorBehind === false && /\((native|dgram)\)$/.test(run.emulator ?? '') ? 0 : null;
  }
  const cpuFigures = ['video.recvKbps', 'video.recvWidth', 'video.recvHeight', 'video.recvFps', 'peerTotals.uplinkKbps',
    'peerTotals.downlinkKbps', 'flowKbps.call:fwd'];
  if (!cpuFigures.includes(key)) return undefined;
  const cpu = run.hostEvidence?.cpu;
  if (!cpu) return null;
  const shares = Object.values(cpu.peers).filter((/** @type {any} */ p) => !p.byDesign)
    .map((/** @type {any} */ p) => p.limitedS / p.measuredS);
  return Math.max(0, cpu.saturatedShare ?? 0, ...shares);
}

test('a row is marked host-limited for exactly the figures whose bound from runs.json exceeds their spread', () => {
  const columnsOf = new Map(REPRODUCTIONS.map((t) => [t.citation, t.columns]));
  let table = '';
  let checked = 0;
  let marked = 0;
  for (const line of readme.split('\n')) {
    if (line.startsWith('## ')) table = line.slice(3).split(':')[0];
    const row = /^\| [^|]*? `([^`]+)` — runs [^:]*: \d+\/\d+ passed(?: · \*\*host-limited: ([^*]+)\*\*)?/.exec(line);
    if (!row) continue;
    const shownMarked = new Set(row[2] ? row[2].split(', ') : []);
    const passed = published.runs.filter((/** @type {any} */ r) => r.scenario === row[1] && r.status === 'passed');
    for (const column of columnsOf.get(table) ?? []) {
      const bounds = passed.map((/** @type {any} */ r) => hostBound(r, column.path));
      const values = passed.map((/** @type {any} */ r) => r.values[column.path]).filter(Number.isFinite);
      if (column.ratioToBaseline || bounds.some((b) => b === undefined) || !values.length) {
        assert.ok(!shownMarked.has(column.heading), `${table}, ${row[1]}: ${column.heading} is not graded`);
        continue;
      }
      const mid = quantile(values, 0.5);
      const iqr = quantile(values, 0.75) - quantile(values, 0.25);
      const delay = column.path === 'rttMs' || column.path === 'bottleneck.queueDelayMs';
      const spread = delay ? Math.max(iqr, 0.05 * Math.abs(mid)) : mid ? Math.max(iqr / Math.abs(mid), 0.05) : 0.05;
      const limited = !bounds.includes(null) && Math.max(...bounds.map(Number)) > spread;
      assert.equal(shownMarked.has(column.heading), limited, `${table}, ${row[1]}: ${column.heading}`);
      checked += 1;
      marked += limited ? 1 : 0;
    }
  }
  assert.ok(checked > 0 && marked > 0, 'the page grades figures, and marks some');
});

test('a table without runs shows each row as none yet and each cell the paper\'s value beside —, and no causes until it has a run', () => {
  const references = referencesOf(new Set(REPRODUCTIONS.flatMap((t) => t.rows.map((r) => r.scenario))));
  const codecs = (/** @type {string} */ page) => page.split('\n## ').find((part) => part.startsWith('J16 §8-7, tables 8-7 (procedure) and 8-11:')) ?? '';
  const empty = renderReproductionMarkdown({ runs: [], references, planned: 15 });
  assert.match(empty, /^- Runs: 0 of the 15 planned \(none; at full length\); \*\*in progress\*\*: rows without runs show —$/m);
  const rows = codecs(empty).split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Row |'));
  assert.deepEqual(rows.map((line) => /`([^`]+)`/.exec(line)?.[1]), ['codec-vp8', 'codec-vp9', 'codec-h264']);
  assert.equal(rows[0], '| VP8 `codec-vp8` — runs none yet: 0/0 passed | — · paper 1440 | — · paper 83.6 | — · paper 2.51 | — · paper 858 '
    + '| — · paper 483 | — · paper 47.4 |');
  assert.match(empty, /\| §8-2-3 latency variation `latency-variation` — runs none yet: 0\/0 passed( \| — · paper n\/a){6} \|/, 'a row J16 gives no figure for');
  assert.doesNotMatch(codecs(empty), /Known causes/);
  const run = { ...published.runs[0], scenario: 'codec-vp8', repetition: 1, status: 'passed' };
  const withRun = codecs(renderReproductionMarkdown({ runs: [run], references, planned: 15 }));
  assert.match(withRun, /\| VP8 `codec-vp8` — runs 1: 1\/1 passed[^|]*\| \*\*\d+\*\*/);
  assert.match(withRun, /Known causes of deviation:\n\n1\. For the codecs J16 injected a 720p variant of its 50 fps source/);
});

test('publishing a chunk adds its finished runs, replaces a re-run one and keeps the others', async () => {
  const suiteDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-publish-suite-'));
  const toDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-publish-to-'));
  const writeChunk = async (/** @type {Array<[string, number, string, number]>} */ runs) => {
    for (const [name, repetition, status, kbps] of runs) {
      const base = makeResult('static');
      const { file, durationS } = loadScenario(name);
      // The relay's packet path comes from its load rows; a run without them names the emulator alone. latency-500's
      // relay was late in seconds 100 (the host's stall) and 200.
      const lateMs = (/** @type {number} */ t) => (t === 100 ? 6.25 : t === 200 ? 4 : 0.3);
      const emulatorLoad = name === 'latency-500'
        ? Array.from({ length: durationS }, (_, i) => ({
          t: i + 1, behind: lateMs(i + 1) > 1, lateP99Ms: lateMs(i + 1), lateMaxMs: lateMs(i + 1),
          timerWakeMaxMs: i + 1 === 100 ? 6 : 0.1, offCpuMaxMs: 0, packetPath: 'native',
        }))
        : undefined;
      const result = { ...base, status, scenario: { ...base.scenario, name, file, durationS }, network: { ...base.network, emulatorLoad } };
      // unconstrained's run 2 was CPU-limited (its p0, which the scenario does not constrain).
      if (name === 'unconstrained' && repetition === 2) {
        result.summary.cpuLimitation = { share: 0.5, byPeer: { p0: 0.5 }, limited: true, thresholdShare: 0.2, seconds: [] };
        result.timeline = result.timeline.map((entry) => (entry.peer === 'p0' && entry.t <= 155
          ? { ...entry, video: { ...entry.video, qualityLimitationReason: 'cpu' } } : entry));
      }
      // latency-500's relay was late in 2 of its 300 s; unconstrained's run 2 says only that it fell behind (an older result).
      if (name === 'latency-500') {
        result.summary.emulatorBehind = { behind: true, seconds: 2, measuredSeconds: 300, spans: [], lateMaxMs: 6.25, hostStallSeconds: 1 };
      }
      result.summary.overall['video.recvKbps'] = { ...result.summary.overall['video.recvKbps'], mean: kbps };
      await mkdir(path.join(suiteDir, name, `run-${repetition}`), { recursive: true });
      await writeFile(path.join(suiteDir, name, `run-${repetition}`, 'result.json'), JSON.stringify(result));
    }
    // The summary's flags: unconstrained run 2's relay fell behind, latency-500's too (CPU verdicts come from the results).
    const summary = { kind: 'webrtc-testbed-suite', schemaVersion: 1,
      runs: runs.map(([scenario, repetition, status]) => ({ scenario, repetition, status, dir: `${scenario}/run-${repetition}`, report: null,
        emulatorBehind: repetition === 2 || scenario === 'latency-500' })) };
    await writeFile(path.join(suiteDir, 'summary.json'), JSON.stringify(summary));
  };
  await writeChunk([['unconstrained', 1, 'passed', 1000], ['unconstrained', 2, 'aborted', 1]]);
  assert.deepEqual(await publishReproduction(suiteDir, toDir, { planned: 3 }).then((r) => [r.runs, r.added]), [1, 1], 'the aborted run is not a figure');
  await writeChunk([['unconstrained', 2, 'passed', 3000], ['latency-500', 1, 'passed', 500]]);
  await publishReproduction(suiteDir, toDir, { planned: 3 });
  await writeChunk([['unconstrained', 1, 'passed', 2000]]);
  const { runs } = await publishReproduction(suiteDir, toDir, { planned: 3 });
  assert.equal(runs, 3);
  const data = JSON.parse(readFileSync(path.join(toDir, 'runs.json'), 'utf8'));
  assert.deepEqual(data.runs.map((/** @type {any} */ r) => [r.scenario, r.repetition, Math.round(r.values['video.recvKbps'])]),
    [['unconstrained', 1, 2000], ['unconstrained', 2, 3000], ['latency-500', 1, 500]]);
  const page = readFileSync(path.join(toDir, 'README.md'), 'utf8');
  // unconstrained's run 2 was CPU-limited in p0's 150 of 300 s: its video figures are host-limited, graded on the page.
  assert.match(page, /`unconstrained` — runs 1, 2: 2\/2 passed · \*\*host-limited: Video \(kbps\), Avg resolution \(width\), Avg resolution \(height\), FPS\*\* · [^|]*run 2: p0 CPU-limited in 50 % of seconds, share 50 % > spread \d+ %: \*\*host-limited\*\*[^|]*\| [^|]*\| \*\*2500\*\*/);
  assert.match(page, /`latency-500` — runs 1: 1\/1 passed · \*\*host-limited: RTT \(ms\)\*\* · [^|]*RTT \(ms\): run 1: 2 of \d+ s late by ≤ 6\.3 ms, effect ≤ 0\.2 ms > spread 0\.1 ms: \*\*host-limited\*\*; relay fell behind: 1 \(2 of 300 s, latest 6\.3 ms; the host did not run it in 1\)[^|]* \|/);
  // Each record keeps its commit's tree state, its report's path and the evidence the page's verdicts are computed from.
  const record = JSON.parse(readFileSync(path.join(toDir, 'runs.json'), 'utf8')).runs.find((/** @type {any} */ r) => r.scenario === 'latency-500');
  assert.equal(record.suiteDir, suiteDir);
  assert.equal(record.hostEvidence.relay.lateS, 2);
  assert.ok(record.hostEvidence.cpu.peers.p0.measuredS > 0);
  assert.match(page, /^- Network emulator \(the relay's packet path\): relay in 2 runs, relay \(native\) in 1 run$/m);
  // A hand-edited record whose relay figures are not numbers still renders (its run number only).
  const edited = JSON.parse(readFileSync(path.join(toDir, 'runs.json'), 'utf8'));
  edited.runs[2].behindSeconds = { seconds: 'two', measuredSeconds: 300, lateMaxMs: '5', hostStallSeconds: {} };
  // Likewise its evidence: a relay part that is not numbers is not measured, and a peer's name that is not a name is not shown.
  edited.runs[2].hostEvidence = { relay: { ...edited.runs[2].hostEvidence.relay, lateByMs: 'many' },
    cpu: { peers: { '<img src=x>': { limitedS: 300, measuredS: 300, byDesign: false } }, saturatedShare: null } };
  await writeFile(path.join(toDir, 'runs.json'), JSON.stringify(edited));
  await publishReproduction(suiteDir, toDir, { planned: 3 });
  const editedPage = readFileSync(path.join(toDir, 'README.md'), 'utf8');
  assert.match(editedPage, /`latency-500` — [^|]*RTT \(ms\): relay lateness not measured/);
  assert.match(editedPage, /`latency-500` — [^|]*run 1: a peer CPU-limited in 100 % of seconds/);
  assert.doesNotMatch(editedPage, /<img/);
  await writeFile(path.join(toDir, 'runs.json'), JSON.stringify({ kind: 'something else' }));
  await assert.rejects(publishReproduction(suiteDir, toDir, { planned: 3 }), /not a published reproduction.*restore the file from git/);
});

test('a chunk with a run under other field trials or REMB is not published: the error names the run and the flags, runs.json stays', async () => {
  const suiteDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-publish-variant-'));
  const toDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-publish-to-'));
  const write = async (/** @type {string} */ name, /** @type {number} */ repetition, /** @type {object} */ congestion) => {
    const base = makeResult('static');
    const { file, durationS } = loadScenario(name);
    await mkdir(path.join(suiteDir, name, `run-${repetition}`), { recursive: true });
    await writeFile(path.join(suiteDir, name, `run-${repetition}`, 'result.json'),
      JSON.stringify({ ...base, status: 'passed', scenario: { ...base.scenario, name, file, durationS, ...congestion } }));
  };
  await write('unconstrained', 1, {});
  const runs = [{ scenario: 'unconstrained', repetition: 1, status: 'passed', dir: 'unconstrained/run-1', report: null }];
  await writeFile(path.join(suiteDir, 'summary.json'), JSON.stringify({ kind: 'webrtc-testbed-suite', schemaVersion: 1, runs }));
  await publishReproduction(suiteDir, toDir, { planned: 3 });
  const before = readFileSync(path.join(toDir, 'runs.json'), 'utf8');
  assert.deepEqual(JSON.parse(before).runs[0].variant, [], 'a run with the shipped congestion control says so');

  await write('tcp-cross-traffic', 1, { bandwidthEstimation: 'remb', fieldTrials: 'WebRTC-Bwe-LossBasedBweV2/Enabled:false/' });
  runs.push({ scenario: 'tcp-cross-traffic', repetition: 1, status: 'passed', dir: 'tcp-cross-traffic/run-1', report: null });
  await writeFile(path.join(suiteDir, 'summary.json'), JSON.stringify({ kind: 'webrtc-testbed-suite', schemaVersion: 1, runs }));
  await assert.rejects(publishReproduction(suiteDir, toDir, { planned: 3 }), (error) => error instanceof Error
    && /tcp-cross-traffic run 1 ran with field trials WebRTC-Bwe-LossBasedBweV2\/Enabled:false\/ and remb bandwidth estimation: an experiment/.test(error.message)
    && /publish a suite run without --field-trials and --bandwidth-estimation/.test(error.message));
  assert.equal(readFileSync(path.join(toDir, 'runs.json'), 'utf8'), before, 'nothing published');
});
