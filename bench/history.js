#!/usr/bin/env node
// The results store at a year's scale: import time per suite (night), store size, the migration's back-fill of
// the per-night aggregate, and the dashboard's query and render time for a synthetic year (365 nights × 54
// scenarios × 5 runs; seeded, orchestrator/history/synthetic.js).
// No browser: `node bench/history.js [--nights 365] [--store file-or-postgres-url]`.
import { rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listScenarios } from '../orchestrator/lib/scenario/scenario-file.js';
import { writeRecords } from '../orchestrator/history/import.js';
import { backfillNightMetrics } from '../orchestrator/history/night-metrics.js';
import { trendsFromStore } from '../orchestrator/history/query.js';
import { openStore, isPostgresUrl } from '../orchestrator/history/store.js';
import { syntheticNights } from '../orchestrator/history/synthetic.js';
import { DASHBOARD_METRICS } from '../orchestrator/history/trends.js';
import { renderTrendsPage } from '../orchestrator/report/render-trends.js';

const { values: args } = parseArgs({ options: { nights: { type: 'string', default: '365' }, store: { type: 'string' } } });
const nights = Number(args.nights);
const target = args.store ?? path.join(os.tmpdir(), `wtb-bench-history-${process.pid}.sqlite`);
const scenarios = listScenarios().map((s) => s.name);
const store = await openStore(target);
const importMs = [];
for (const night of syntheticNights({ scenarios, nights, runsPerNight: 5, drift: { scenario: scenarios[0], metric: 'video.recvKbps', lastNights: 14, pctPerNight: 2 } })) {
  const start = performance.now();
  await writeRecords(store, night);
  importMs.push(performance.now() - start);
}
const sorted = [...importMs].sort((a, b) => a - b);
console.log(`import: ${nights} nights × ${scenarios.length} scenarios × 5 runs into ${store.kind}: median ${sorted[Math.floor(nights / 2)].toFixed(0)} ms per night (max ${sorted[sorted.length - 1].toFixed(0)} ms), ${(importMs.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s in all`);
if (!isPostgresUrl(target)) {
  await store.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  console.log(`store size: ${(statSync(target).size / 1e6).toFixed(1)} MB (${target})`);
}
let start = performance.now();
// What the migration to schema 3 costs a store of a year: the per-night aggregate computed from every run.
await store.transaction(async () => {
  await store.exec('DELETE FROM night_metrics');
  await backfillNightMetrics(store);
});
console.log(`back-fill of the per-night aggregate (migration to schema 3): ${((performance.now() - start) / 1000).toFixed(1)} s`);
start = performance.now();
const trends = await trendsFromStore(store, { metrics: DASHBOARD_METRICS });
const queryMs = performance.now() - start;
start = performance.now();
const html = renderTrendsPage(trends, { store: store.where });
console.log(`dashboard: query and aggregation ${queryMs.toFixed(0)} ms, render ${(performance.now() - start).toFixed(0)} ms, ${(html.length / 1e6).toFixed(1)} MB of HTML, ${trends.drifts.length} drifts`);
await store.close();
if (!args.store) for (const suffix of ['', '-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
