// The link fields have one owner, LINK_FIELD_SPECS (orchestrator/lib/network/link-model.js): every place that lists a
// link's fields reads it, so a field added there is filled in, written in docs/catalog.md and shown in the run report.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  LINK_FIELDS, LINK_FIELD_SPECS, RAMPABLE_FIELDS, mergeLinkParams, normalizeLinkParams,
} from '../../orchestrator/lib/network/link-model.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { renderCatalog } from '../../orchestrator/report/render-catalog.js';
import { renderRunReport } from '../../orchestrator/report/render-run.js';
import { makeResult } from '../fixtures/results/make-result.js';
import { tempDir } from '../helpers/cli.js';

/** A valid value of every field; a new field needs one here, and then every check below covers it. */
const SAMPLE = {
  rateKbps: 1234, queuePackets: 40, queueMs: 300, oneWayDelayMs: 45, jitterMs: 6, lossPct: 7, lossBurst: 3,
  trace: 'synthetic:step-1500-500-60',
};
/** Fields a link cannot hold beside the others (one queue limit, a rate or a trace): set later by the schedule. */
const LATER = ['queueMs', 'trace'];

test('the sample covers every link field, and the results list them in the owner\'s order', () => {
  assert.deepEqual(Object.keys(SAMPLE).sort(), [...LINK_FIELDS].sort());
  assert.deepEqual(Object.keys(normalizeLinkParams({}, 'x.json: network.link')), LINK_FIELDS);
  assert.deepEqual(RAMPABLE_FIELDS, LINK_FIELD_SPECS.filter((spec) => spec.rampUnit).map((spec) => spec.field));
});

test('giving one field of a setting replaces the setting as a whole', () => {
  const base = normalizeLinkParams({ rateKbps: 1000, queueMs: 300 }, 'x.json: network.link');
  const traced = mergeLinkParams(base, { trace: SAMPLE.trace, queuePackets: 40 }, 'x.json: set');
  assert.equal(traced.rateKbps, null);
  assert.equal(traced.queueMs, null);
});

test('docs/catalog.md states every link field and each rampable field\'s unit', () => {
  const scenario = {
    name: 'fixture-link-fields',
    description: 'Every link field once',
    durationS: 120,
    network: {
      link: Object.fromEntries(Object.entries(SAMPLE).filter(([field]) => !LATER.includes(field))),
      schedule: [
        { at: 10, links: 'uplinks', set: { queueMs: SAMPLE.queueMs } },
        { at: 20, links: 'uplinks', set: { trace: SAMPLE.trace, queuePackets: SAMPLE.queuePackets } },
        ...RAMPABLE_FIELDS.map((field, i) => ({ at: 30 + 10 * i, links: 'uplinks', ramp: { field, from: 10, to: 20, durationS: 5 } })),
      ],
    },
    reference: null,
  };
  const file = path.join(tempDir('wtb-link-fields-'), `${scenario.name}.json`);
  writeFileSync(file, JSON.stringify(scenario));
  const markdown = renderCatalog([loadScenario(file)]);
  for (const { field, text, rampUnit } of LINK_FIELD_SPECS) {
    assert.ok(markdown.includes(text(SAMPLE[field])), `${field}: ${text(SAMPLE[field])}`);
    if (rampUnit) assert.ok(markdown.includes(`10 → 20 ${rampUnit},`), `${field}'s ramp in ${rampUnit}`);
  }
});

test('the run report\'s link table has a column of every link field', () => {
  const result = makeResult('static');
  result.network.links = { 'p0.up': SAMPLE };
  const html = renderRunReport(result);
  const table = /<th>Link<\/th>(.*?)<\/tbody>/s.exec(html)?.[1] ?? '';
  assert.equal(table.match(/<th>/g)?.length, LINK_FIELDS.length);
  for (const field of LINK_FIELDS) {
    assert.ok(table.includes(`<th>${field}</th>`), field);
    assert.ok(table.includes(`<td>${SAMPLE[field]}</td>`), `${field}'s value`);
  }
});
