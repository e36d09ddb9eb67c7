// `suite`/`merge --history <store>`: the suite is written to the results store before its outputs, and the
// store's slow drifts of that suite come back as warnings for summary.json and its Markdown and HTML (never a
// failure). A store that cannot be written is a warning too: the suite's own result must not be lost to it.
import { driftWarnings } from '../lib/stats/drift.js';
import { suiteRecords, writeRecords } from './import.js';
import { trendsFromStore } from './query.js';
import { isPostgresUrl, openStore } from './store.js';
import { redact } from './store-postgres.js';
import { DASHBOARD_METRICS } from './trends.js';
import { errorMessage } from '../lib/system/errors.js';

/**
 * @param {string} suiteDir @param {import('./import.js').SummaryJson} summary
 * @param {{ store: string, commit: string|null, drift: { nights: number, thresholdPct: number }, log?: (line: string) => void }} options
 * @returns {Promise<string[]>} warnings
 */
export async function rememberSuite(suiteDir, summary, { store: target, commit, drift, log = () => {} }) {
  let store;
  try {
    store = await openStore(target);
    const added = await writeRecords(store, await suiteRecords(suiteDir, summary, { commit }));
    log(`results store ${store.where}: added ${added.nights} nights, ${added.runs} runs`);
    const trends = await trendsFromStore(store, { suite: summary.suite.name, metrics: DASHBOARD_METRICS, drift });
    return driftWarnings(trends.drifts);
  } catch (error) {
    return [`results store ${isPostgresUrl(target) ? redact(target) : target}: this suite was not stored (${errorMessage(error)}); import it later with \`history import ${suiteDir}\``];
  } finally {
    await store?.close();
  }
}
