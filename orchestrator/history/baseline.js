// The rolling baseline read from the results store instead of the Actions cache (pure): one baseline per green
// night, built from its passed runs' values, then joined by suite/baseline.js rollBaselines as the cache's files are.
import { BASELINE_KIND, BASELINE_SCHEMA_VERSION } from '../suite/baseline.js';

/**
 * @param {{ id: string, suite: string, started_at: string, browser: string|null, emulator: string|null,
 *   machine_class: string|null }[]} nights
 * @param {{ night_id: string, run_id: string, scenario: string, metric: string, median: number }[]} values
 * @returns {import('../suite/baseline.js').Baseline[]}
 */
export function nightBaselines(nights, values) {
  return nights.map((night) => {
    /** @type {Record<string, { runIds: Set<string>, values: Record<string, number[]> }>} */
    const byScenario = {};
    for (const row of values) {
      if (row.night_id !== night.id || !Number.isFinite(row.median)) continue;
      const entry = (byScenario[row.scenario] ??= { runIds: new Set(), values: {} });
      entry.runIds.add(row.run_id);
      (entry.values[row.metric] ??= []).push(row.median);
    }
    return {
      kind: BASELINE_KIND, schemaVersion: BASELINE_SCHEMA_VERSION, suite: night.suite, createdAt: night.started_at,
      source: `history: ${night.id}`, environment: { browser: night.browser, emulator: night.emulator },
      machineClass: night.machine_class ? JSON.parse(night.machine_class) : null,
      scenarios: Object.fromEntries(Object.entries(byScenario)
        .map(([name, entry]) => [name, { runs: entry.runIds.size, values: entry.values }])),
    };
  });
}
