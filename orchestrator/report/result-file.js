// Reading result.json: clear errors for files that cannot be rendered, defaults for missing
// sections so a partial result (aborted run, crashed peer) still renders.

import { readFile } from 'node:fs/promises';
import { parseReason } from '../lib/input/json-file.js';
import { InputError } from '../lib/system/errors.js';
import { SCHEMA_VERSION } from '../lib/result/result.js';

/**
 * Parses and checks the text of a result.json. Throws InputError naming the file for malformed
 * or truncated JSON, a missing or different schemaVersion, or a timeline that is not an array.
 * @param {string} text @param {string} file shown in messages
 * @returns {object} the normalized result (see normalizeResult)
 */
export function parseResult(text, file) {
  if (!text.trim()) {
    throw new InputError(`${file} is empty: the run did not write its result. Re-run the scenario, or delete the run directory.`);
  }
  let raw;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // Cut off mid-write: the parser fails at (or past) the last character.
    const position = Number(/position (\d+)/.exec(error.message)?.[1]);
    const truncated = /end of (JSON )?input|Unterminated/i.test(error.message) || position >= text.trimEnd().length;
    throw new InputError(
      truncated
        ? `${file} is truncated (${text.length} bytes, JSON ends early): the run was interrupted while writing it. Re-run the scenario.`
        : `${file} is not valid JSON (${parseReason(error.message)}). Fix or delete the file, or re-run the scenario.`,
      { cause: error },
    );
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InputError(`${file} does not hold a result object (found ${Array.isArray(raw) ? 'an array' : typeof raw}). Pass a run's result.json.`);
  }
  if (raw.schemaVersion === undefined) {
    throw new InputError(`${file} has no schemaVersion field: it is not a result.json of this harness (docs/results-schema.md). Pass a run's result.json.`);
  }
  if (raw.schemaVersion !== SCHEMA_VERSION) {
    throw new InputError(
      `${file} has schemaVersion ${JSON.stringify(raw.schemaVersion)}; this report reads schemaVersion ${SCHEMA_VERSION} ` +
        '(docs/results-schema.md). Re-render it with the harness version that wrote it.',
    );
  }
  if (raw.timeline !== undefined && raw.timeline !== null && !Array.isArray(raw.timeline)) {
    throw new InputError(`${file}: field "timeline" must be an array of per-second entries (docs/results-schema.md).`);
  }
  return normalizeResult(raw);
}

/**
 * Fills every section the renderers read with an empty default, so they never meet undefined.
 * Keeps unknown fields. Pure.
 * @param {object} raw @returns {object}
 */
export function normalizeResult(raw) {
  const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
  const arr = (v) => (Array.isArray(v) ? v : []);
  const records = (v) => arr(v).filter((e) => e && typeof e === 'object' && !Array.isArray(e));
  const scenario = obj(raw.scenario);
  const network = obj(raw.network);
  return {
    ...raw,
    status: typeof raw.status === 'string' ? raw.status : 'unknown',
    errors: arr(raw.errors).map((e) => (typeof e === 'string' ? { message: e } : obj(e))),
    scenario: { ...scenario, name: typeof scenario.name === 'string' ? scenario.name : 'unnamed', reference: scenario.reference ?? null },
    environment: {
      ...obj(raw.environment),
      startedAt: typeof raw.environment?.startedAt === 'string' ? raw.environment.startedAt : null,
      browser: obj(raw.environment?.browser),
      media: obj(raw.environment?.media),
    },
    timeline: arr(raw.timeline).filter((e) => e && typeof e === 'object' && Number.isFinite(e.t) && e.peer),
    events: records(raw.events),
    network: {
      ...network,
      links: Object.fromEntries(Object.entries(obj(network.links)).map(([k, v]) => [k, obj(v)])),
      routes: Object.fromEntries(Object.entries(obj(network.routes)).filter(([, v]) => Array.isArray(v) && v.every((l) => typeof l === 'string'))),
      configured: records(network.configured),
      truth: Array.isArray(network.truth) ? records(network.truth) : null,
      commands: records(network.commands),
      scheduleEvents: records(network.scheduleEvents),
    },
    summary: raw.summary && typeof raw.summary === 'object' ? raw.summary : null,
    resources: { ...obj(raw.resources), rows: records(raw.resources?.rows).filter((row) => Number.isFinite(row.t) && typeof row.process === 'string') },
    sfu: raw.sfu && typeof raw.sfu === 'object' ? {
      ...obj(raw.sfu),
      rows: records(raw.sfu.rows).filter((row) => Number.isFinite(row.t) && typeof row.peer === 'string' && typeof row.feed === 'string'),
    } : null,
    viewer: raw.viewer && typeof raw.viewer === 'object' ? {
      ...obj(raw.viewer),
      freezes: records(raw.viewer.freezes).filter((f) => Number.isFinite(f.atS) && Number.isFinite(f.durationMs) && typeof f.peer === 'string'),
      readCost: obj(raw.viewer.readCost),
    } : null,
    flows: {
      ...obj(raw.flows),
      list: records(raw.flows?.list).filter((f) => typeof f.name === 'string'),
      rows: records(raw.flows?.rows).filter((row) => Number.isFinite(row.t) && typeof row.flow === 'string'),
    },
  };
}

/**
 * Reads, checks and normalizes a result.json.
 * @param {string} file @returns {Promise<object>}
 */
export async function loadResult(file) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') throw new InputError(`${file} does not exist: pass a run directory that holds a result.json.`, { cause: error });
    if (error.code === 'EISDIR') throw new InputError(`${file} is a directory: pass a run directory that holds a result.json.`, { cause: error });
    throw new InputError(`cannot read ${file}: ${error.message}`, { cause: error });
  }
  return parseResult(text, file);
}
