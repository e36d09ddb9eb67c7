// The results store's SQL schema and its migrations: one list for the embedded (SQLite) and the PostgreSQL
// backend, so both stores hold the same tables. Format: docs/history.md.
// Times are ISO 8601 UTC text (sortable in both databases); identifiers are text keys derived from the results,
// so importing a suite twice finds the rows it wrote the first time.
import { backfillNightMetrics } from './night-metrics.js';

/**
 * Each migration takes the store from version index to index + 1. Never edit a shipped one: append.
 * fill: runs after the statements, in the same transaction (derived tables computed from the stored rows).
 * @type {{ version: number, why: string, statements: string[], fill?: (store: import('./store.js').Backend) => Promise<void> }[]}
 */
export const MIGRATIONS = [
  {
    version: 1,
    why: 'nights (suite results), runs, per-run metric summaries, the gate\'s comparisons',
    statements: [
      `CREATE TABLE nights (
        id TEXT PRIMARY KEY, suite TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, outcome TEXT NOT NULL,
        exit_code INTEGER, commit_sha TEXT, browser TEXT, emulator TEXT, machine_class TEXT, shard TEXT,
        suite_dir TEXT, report TEXT, imported_at TEXT NOT NULL)`,
      `CREATE TABLE runs (
        id TEXT PRIMARY KEY, night_id TEXT REFERENCES nights(id), scenario TEXT NOT NULL, repetition INTEGER,
        started_at TEXT NOT NULL, status TEXT NOT NULL, commit_sha TEXT, browser TEXT, browser_version TEXT,
        emulator TEXT, machine_class TEXT, result_path TEXT, report TEXT)`,
      `CREATE TABLE run_metrics (
        run_id TEXT NOT NULL REFERENCES runs(id), metric TEXT NOT NULL, median DOUBLE PRECISION,
        mean DOUBLE PRECISION, n INTEGER, PRIMARY KEY (run_id, metric))`,
      `CREATE TABLE comparisons (
        night_id TEXT NOT NULL REFERENCES nights(id), scenario TEXT NOT NULL, metric TEXT NOT NULL, verdict TEXT NOT NULL,
        current_median DOUBLE PRECISION, baseline_median DOUBLE PRECISION, p_value DOUBLE PRECISION,
        cliffs_delta DOUBLE PRECISION, relative_change DOUBLE PRECISION, PRIMARY KEY (night_id, scenario, metric))`,
    ],
  },
  {
    version: 2,
    why: 'the IQR and the published reference per run metric; an index for the trend queries',
    statements: [
      'ALTER TABLE run_metrics ADD COLUMN q1 DOUBLE PRECISION',
      'ALTER TABLE run_metrics ADD COLUMN q3 DOUBLE PRECISION',
      'ALTER TABLE run_metrics ADD COLUMN reference DOUBLE PRECISION',
      'CREATE INDEX runs_scenario_time ON runs (scenario, started_at)',
      'CREATE INDEX runs_night ON runs (night_id)',
    ],
  },
  {
    version: 3,
    why: 'night_metrics: the per-night aggregate the dashboard reads (a year in well under the 20 s of aggregating every run)',
    statements: [
      `CREATE TABLE night_metrics (
        night_id TEXT NOT NULL REFERENCES nights(id), scenario TEXT NOT NULL, metric TEXT NOT NULL,
        median DOUBLE PRECISION, q1 DOUBLE PRECISION, q3 DOUBLE PRECISION, n INTEGER, reference DOUBLE PRECISION,
        browser_version TEXT, regression INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (night_id, scenario, metric))`,
    ],
    fill: backfillNightMetrics,
  },
  {
    version: 4,
    why: 'the baseline each night was compared with (\'\' for none: such a night starts a new rolling series; NULL: not known)',
    statements: ['ALTER TABLE nights ADD COLUMN compared_with TEXT'],
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The bookkeeping table: one row, the store's schema version. */
export const VERSION_TABLE = 'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)';

/**
 * The migrations a store of `current` needs to reach `target`.
 * @param {number} current @param {number} [target]
 */
export function pendingMigrations(current, target = SCHEMA_VERSION) {
  return MIGRATIONS.filter((migration) => migration.version > current && migration.version <= target);
}
