// Hostile result.json files for the results store's tests (test/unit/hostile-history.test.js with SQLite,
// test/hostile-history.test.js with PostgreSQL): a victim run, and one whose arrays would move values into its rows.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeResult } from '../fixtures/results/make-result.js';

/** A run directory holding this result.json. @param {string} root @param {string} name @param {unknown} result */
export function runDir(root, name, result) {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'result.json'), JSON.stringify(result));
  return dir;
}

/** A complete result of another run (the victim), and its run id: no video.recvKbps, as an audio-only call has none. */
export function victimResult() {
  const result = makeResult('static');
  delete result.summary.overall['video.recvKbps'];
  const startedAt = '2026-01-01T00:00:00.000Z';
  return { result: { ...result, environment: { ...result.environment, startedAt } }, id: `${result.scenario.name}@${startedAt}` };
}

/**
 * A result whose two metric rows (8 bound values each) hide a row of the victim's: the first row's n carries it,
 * the second gives up three values (empty arrays) so that the count still fits the statement's 16 placeholders.
 * @param {string} victimId
 */
export function shiftingResult(victimId) {
  const base = makeResult('static');
  return {
    ...base, timeline: [], environment: { ...base.environment, startedAt: '2026-01-02T00:00:00.000Z' },
    scenario: { ...base.scenario, reference: { metrics: { 'video.sendKbps': { mean: [] }, 'video.recvKbps': { mean: [] } } } },
    summary: { overall: {
      'video.sendKbps': { median: 1, mean: 1, n: [1, null, victimId, 'video.recvKbps', 123456] },
      'video.recvKbps': { median: 2, mean: [], n: [] },
    } },
  };
}

/** The metric rows of one run in a store. @param {import('../../orchestrator/history/store.js').Store} store @param {string} runId */
export const metricsOf = (store, runId) => store.query('SELECT metric, median FROM run_metrics WHERE run_id = ? ORDER BY metric', [runId]);
