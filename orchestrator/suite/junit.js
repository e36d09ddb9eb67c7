// JUnit XML of a suite summary (pure): one <testsuite> per scenario; testcases for each run (a crash is an
// <error>), each assertion (an error-level failure is a <failure>, a warning passes with <system-out>, level
// off is <skipped>) and each regression check (a regression is a <failure>, inconclusive is <skipped>).
import { escapeHtml, formatNumber } from '../report/format.js';

// XML 1.0 forbids most control characters (ANSI colour codes in browser messages, for instance).
/** @param {unknown} value */
const xml = (value) => escapeHtml(String(value ?? '').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, ''));

/**
 * @typedef {{ name: string, className: string, timeS?: number, outcome?: { tag: string, message: string, type?: string, body?: string },
 *   out?: string }} Testcase
 */

/** @param {Testcase} testcase */
function renderTestcase({ name, className, timeS = 0, outcome, out }) {
  const inner = [
    outcome && (outcome.tag === 'skipped'
      ? `<skipped message="${xml(outcome.message)}"/>`
      : `<${outcome.tag} message="${xml(outcome.message)}" type="${xml(outcome.type ?? outcome.tag)}">${xml(outcome.body ?? '')}</${outcome.tag}>`),
    out && `<system-out>${xml(out)}</system-out>`,
  ].filter(Boolean).join('');
  const open = `<testcase classname="${xml(className)}" name="${xml(name)}" time="${Number(timeS).toFixed(3)}"`;
  return inner ? `${open}>${inner}</testcase>` : `${open}/>`;
}

/** @param {import('./assertions.js').AssertionResult} a */
const assertionMessage = (a) => `${a.metric} ${a.statistic} = ${a.value === null ? 'no data' : formatNumber(a.value)} (${a.n} values): ${a.passed ? 'holds' : 'does not hold'}`;

/** @param {import('./baseline.js').MetricComparison} c */
function comparisonMessage(c) {
  const stats = c.pValue === null ? '' : `; p = ${c.pValue.toPrecision(2)} (${c.method}), Cliff's δ = ${c.cliffsDelta.toFixed(2)}`;
  return `median ${formatNumber(c.current.median)} vs baseline ${formatNumber(c.baseline.median)} (${c.current.n} vs ${c.baseline.n} runs)${stats}: ${c.reason}`;
}

/**
 * @param {import('./summary.js').SuiteSummary} summary a suite summary
 * @returns {string} the JUnit XML document
 */
export function renderJunit(summary) {
  const suiteName = summary.suite.name;
  const testsuites = summary.scenarios.map((scenario) => {
    const className = `${suiteName}.${scenario.name}`;
    /** @type {Testcase[]} */
    const cases = [];
    for (const run of summary.runs.filter((r) => r.scenario === scenario.name)) {
      const failed = run.status === 'failed' || run.status === 'missing';
      cases.push({
        name: `run ${run.repetition}`, className, timeS: run.durationS ?? 0,
        outcome: failed ? { tag: 'error', type: 'crash', message: `run ${run.status}: ${run.errors[0] ?? 'no result.json'}`, body: run.errors.join('\n') }
          : run.status === 'aborted' ? { tag: 'skipped', message: 'run aborted' } : undefined,
      });
    }
    for (const a of scenario.assertions) {
      const name = `assert [${a.level}] ${a.check}`;
      if (a.level === 'off') cases.push({ name, className, outcome: { tag: 'skipped', message: 'level off' } });
      else if (a.passed || a.level === 'warn') cases.push({ name, className, out: `${a.passed ? '' : 'WARNING: '}${assertionMessage(a)}${a.why ? `\n${a.why}` : ''}` });
      else cases.push({ name, className, outcome: { tag: 'failure', type: 'assertion', message: assertionMessage(a), body: a.why ?? '' } });
    }
    for (const c of scenario.regressions) {
      const name = `regression ${c.metric} (worse when ${c.worseWhen})`;
      const message = comparisonMessage(c);
      if (c.verdict === 'regression') cases.push({ name, className, outcome: { tag: 'failure', type: 'regression', message, body: `baseline: ${c.baseline.values.join(', ')}\ncurrent: ${c.current.values.join(', ')}` } });
      else if (c.verdict === 'inconclusive') cases.push({ name, className, outcome: { tag: 'skipped', message: `inconclusive: ${c.reason}` } });
      else cases.push({ name, className, out: message });
    }
    return { name: className, cases };
  });
  if (summary.problems.length) {
    const tag = summary.outcome === 'environment-error' || summary.outcome === 'input-error' ? 'error' : 'skipped';
    testsuites.push({
      name: `${suiteName}.suite`,
      cases: summary.problems.map((problem, i) => ({ name: `problem ${i + 1}`, className: `${suiteName}.suite`, outcome: { tag, type: summary.outcome, message: problem, body: problem } })),
    });
  }

  /** @param {Testcase[]} cases @param {string} tag */
  const count = (cases, tag) => cases.filter((c) => c.outcome?.tag === tag).length;
  /** @param {Testcase[]} cases */
  const attributes = (cases) => `tests="${cases.length}" failures="${count(cases, 'failure')}" errors="${count(cases, 'error')}" skipped="${count(cases, 'skipped')}" time="${cases.reduce((sum, c) => sum + (c.timeS ?? 0), 0).toFixed(3)}"`;
  const allCases = testsuites.flatMap((s) => s.cases);
  const body = testsuites.map((s) => `  <testsuite name="${xml(s.name)}" ${attributes(s.cases)}${summary.startedAt ? ` timestamp="${xml(summary.startedAt.replace(/\.\d+Z$/, ''))}"` : ''}>\n${s.cases.map((c) => `    ${renderTestcase(c)}`).join('\n')}\n  </testsuite>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(`webrtc-testbed suite ${suiteName}`)}" ${attributes(allCases)}>\n${body.join('\n')}\n</testsuites>\n`;
}
