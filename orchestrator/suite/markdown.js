// The Markdown summary of a suite (pure): for CI job summaries ($GITHUB_STEP_SUMMARY) and PR comments.
import { percentile } from '../lib/stats/statistics.js';
import { headlinePaths } from '../lib/result/metric-catalogue.js';
import { formatNumber, metricInfo } from '../report/format.js';

/** @type {Partial<Record<import('./summary.js').Outcome, string>>} */
const OUTCOME_LABEL = {
  passed: '✅ passed', failed: '❌ failed', crashed: '💥 a run crashed', 'environment-error': '⚠️ environment error', aborted: '⏹️ aborted',
};
const OVERVIEW_METRICS = headlinePaths('overview');

/** Table cells must not break the row. @param {unknown} text */
const cell = (text) => String(text ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
/** @param {unknown} text */
const code = (text) => `\`${String(text).replace(/`/g, "'")}\``;
/** @param {number|null} v */
const pct = (v) => (v === null ? '—' : `${v > 0 ? '+' : ''}${formatNumber(v * 100, 1)} %`);

/**
 * Median over the scenario's passed runs of the per-run values.
 * @param {import('./summary.js').SuiteSummary} summary @param {string} scenario @param {string} metric
 */
function medianOf(summary, scenario, metric) {
  const values = summary.runs.filter((r) => r.scenario === scenario && r.status === 'passed' && Number.isFinite(r.values[metric])).map((r) => r.values[metric]).sort((a, b) => a - b);
  return percentile(values, 50);
}

/**
 * @param {import('./summary.js').SuiteSummary} summary a suite summary
 * @param {{ reportPath?: string }} [options] reportPath: where the HTML report is, mentioned at the end
 * @returns {string}
 */
export function renderMarkdown(summary, { reportPath } = {}) {
  const { counts, suite } = summary;
  const lines = [`### ${OUTCOME_LABEL[summary.outcome] ?? summary.outcome}: suite ${code(suite.name)} (exit ${summary.exitCode})`, ''];
  const env = summary.environment;
  const facts = [
    `${counts.runs} run${counts.runs === 1 ? '' : 's'}: ${counts.passedRuns} passed${counts.crashedRuns ? `, ${counts.crashedRuns} crashed` : ''}${counts.abortedRuns ? `, ${counts.abortedRuns} aborted` : ''}`,
    summary.shard && `shard ${summary.shard.index}/${summary.shard.count}`,
    summary.mergedFrom && `merged from ${summary.mergedFrom.length} director${summary.mergedFrom.length === 1 ? 'y' : 'ies'}`,
    env && [env.browser, env.emulator, env.video].filter(Boolean).join(' · '),
    summary.baseline ? `baseline ${code(summary.baseline.file)} (suite ${summary.baseline.suite}, ${summary.baseline.createdAt ?? 'undated'})` : 'no baseline',
  ].filter(Boolean);
  lines.push(facts.join(' · '), '');
  for (const problem of summary.problems) lines.push(`> ⚠️ ${cell(problem)}`, '');
  if (summary.warnings?.length) lines.push('**Warnings** (not failures)', '', ...summary.warnings.map((warning) => `- ⚠️ ${cell(warning)}`), '');
  if (summary.notRun.length) lines.push(`Not run: ${summary.notRun.map(code).join(', ')}`, '');

  if (summary.scenarios.length) {
    const heads = OVERVIEW_METRICS.map((m) => `${metricInfo(m).label} (${metricInfo(m).unit})`);
    lines.push(`| scenario | runs | ${heads.join(' | ')} | assertions | vs baseline |`, `|---|---|${OVERVIEW_METRICS.map(() => '---:|').join('')}---|---|`);
    for (const s of summary.scenarios) {
      const active = s.assertions.filter((a) => a.level !== 'off');
      const failedErrors = active.filter((a) => a.level === 'error' && !a.passed).length;
      const warnings = active.filter((a) => a.level === 'warn' && !a.passed).length;
      const assertionCell = !active.length ? '—'
        : `${failedErrors ? '❌' : warnings ? '⚠️' : '✅'} ${active.filter((a) => a.passed).length}/${active.length}${warnings ? ` (${warnings} warning${warnings > 1 ? 's' : ''})` : ''}`;
      const verdicts = ['regression', 'improvement', 'unchanged', 'inconclusive'].map((v) => [v, s.regressions.filter((c) => c.verdict === v).length]).filter(([, n]) => n);
      const baselineCell = !summary.baseline ? '—' : `${verdicts.some(([v]) => v === 'regression') ? '❌ ' : ''}${verdicts.map(([v, n]) => `${n} ${v}`).join(', ')}`;
      const values = OVERVIEW_METRICS.map((m) => formatNumber(medianOf(summary, s.name, m)));
      lines.push(`| ${cell(s.name)} | ${s.passedRuns}/${s.runs} | ${values.join(' | ')} | ${assertionCell} | ${baselineCell} |`);
    }
    lines.push('', 'Metric columns: median over passed runs of each run\'s median in its measurement window.', '');
  }

  const failing = summary.scenarios.flatMap((s) => s.assertions.filter((a) => a.passed === false).map((a) => ({ scenario: s.name, ...a })));
  if (failing.length) {
    lines.push('**Assertions not holding**', '');
    for (const a of failing) {
      lines.push(`- ${a.level === 'error' ? '❌ error' : '⚠️ warn'} ${code(a.scenario)}: ${code(a.check)} → ${a.value === null ? 'no data' : formatNumber(a.value)}${a.why ? ` (${cell(a.why)})` : ''}`);
    }
    lines.push('');
  }

  const checks = summary.scenarios.flatMap((s) => s.regressions.filter((c) => c.verdict === 'regression' || c.verdict === 'improvement').map((c) => ({ scenario: s.name, ...c })));
  if (checks.length) {
    lines.push('**Changes against the baseline**', '', '| scenario | metric | verdict | baseline median | current median | change | p | Cliff\'s δ |', '|---|---|---|---:|---:|---:|---:|---:|');
    for (const c of checks) {
      lines.push(`| ${cell(c.scenario)} | ${code(c.metric)} | ${c.verdict === 'regression' ? '❌ regression' : '✅ improvement'} | ${formatNumber(c.baseline.median)} | ${formatNumber(c.current.median)} | ${pct(c.relativeChange)} | ${c.pValue === null ? '—' : c.pValue.toPrecision(2)} | ${formatNumber(c.cliffsDelta, 2)} |`);
    }
    lines.push('');
  }

  if (summary.twoPartyRatios?.length) {
    lines.push('**Per-peer rate vs the 2-party call** (J16 §8-3: ×2.03 for a 3-party, ×2.77 for a 4-party mesh)', '',
      '| group | scenario | peers | per-peer uplink (kbps) | 2-party (kbps) | ratio |', '|---|---|---:|---:|---:|---:|');
    for (const r of summary.twoPartyRatios) {
      lines.push(`| ${cell(r.group)} | ${code(r.scenario)} | ${r.peers} | ${formatNumber(r.uplinkKbps)} | ${formatNumber(r.twoPartyKbps)} | ×${formatNumber(r.ratio, 2)} |`);
    }
    lines.push('');
  }

  const starved = summary.scenarios.filter((s) => s.cpuLimitedRuns > 0);
  if (starved.length) {
    lines.push('**CPU-limited runs** (the host, not the network, held quality back: read their failures and regressions with care)', '');
    for (const s of starved) {
      const byDesign = s.cpuLimitedRuns - s.hostLimitedRuns;
      lines.push(`- ${code(s.name)}: ${s.cpuLimitedRuns} of ${s.runs} runs${byDesign ? ` (${byDesign} only in the peers the scenario constrains, by design)` : ''}`);
    }
    lines.push('');
  }

  const behind = summary.scenarios.filter((s) => s.emulatorBehindRuns > 0);
  if (behind.length) {
    lines.push('**Runs whose emulator fell behind** (its datagrams late at p99 beyond its limit in some seconds, the relay\'s: '
      + '1 ms on its native packet path, 2 ms on dgram; the links were not the configured ones)', '');
    for (const s of behind) lines.push(`- ${code(s.name)}: ${s.emulatorBehindRuns} of ${s.runs} runs`);
    lines.push('');
  }

  const crashed = summary.runs.filter((r) => r.status !== 'passed');
  if (crashed.length) {
    lines.push('**Runs that did not pass**', '');
    for (const r of crashed) lines.push(`- ${code(r.scenario)} run ${r.repetition}: ${r.status}${r.errors.length ? ` — ${cell(r.errors[0])}` : ''}`);
    lines.push('');
  }
  if (reportPath) lines.push(`Report: ${code(reportPath)}`, '');
  return `${lines.join('\n').trimEnd()}\n`;
}
