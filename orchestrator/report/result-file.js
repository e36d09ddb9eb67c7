// Reading result.json: clear errors for files that cannot be rendered, defaults for missing
// sections so a partial result (aborted run, crashed peer) still renders.

import { readInputText } from '../lib/input/input-file.js';
import { parseReason } from '../lib/input/json-file.js';
import { MAX_RESULT_FILE_BYTES } from '../lib/input/limits.js';
import { InputError } from '../lib/system/errors.js';
import { isRecord } from '../lib/input/validate.js';
import { SCHEMA_VERSION } from '../lib/result/result.js';

/**
 * result.json as the renderers read it (normalizeResult): every section present, lists holding only records. The
 * file was written by this harness (its schemaVersion is checked), so a field inside a section is as
 * lib/result/result.js's RunResult says, but a partial result (aborted run, crashed peer, older run) may lack it.
 * @typedef {import('../lib/result/result.js').RunResult} RunResult
 * @typedef {{ t: number, peer: string, remote?: string, video?: Record<string, unknown>, audio?: Record<string, unknown>,
 *   [field: string]: unknown }} ReportEntry  a timeline entry: numbers at dotted paths (timeline.js metricAt)
 * @typedef {{ name: string, reference: ScenarioReference|null, description?: string, durationS?: number,
 *   nominalDurationS?: number, timeScale?: number, warmupS?: number, peers?: number, network?: Record<string, unknown>,
 *   codec?: { mimeType?: string }, [field: string]: unknown }} ReportScenario
 * @typedef {{ source?: string, metrics?: Record<string, { mean?: number|null, sd?: number|null }>,
 *   [field: string]: unknown }} ScenarioReference  the published figures a run is compared with (lib/scenario/reference.js)
 * @typedef {Partial<Omit<import('../lib/result/result.js').Environment, 'startedAt'|'browser'|'media'>> & {
 *   startedAt: string|null, browser: Partial<import('../lib/result/result.js').Environment['browser']>,
 *   media: Partial<import('../lib/result/result.js').Environment['media']> }} ReportEnvironment
 * @typedef {Partial<Omit<RunResult['network'], 'links'|'configured'|'truth'>>
 *   & Pick<RunResult['network'], 'routes'|'commands'|'scheduleEvents'> & {
 *   links: Record<string, import('./network.js').RecordedLinkParams>,
 *   configured: NonNullable<import('./network.js').NetworkSection['configured']>,
 *   truth: TruthEntry[]|null }} ReportNetwork
 * @typedef {{ t: number, link?: string, bytesOut?: number|null, packetsIn?: number, dropsLoss?: number, dropsQueue?: number,
 *   queueDelayMsP50?: number|null, queueDelayMsP95?: number|null, [field: string]: unknown }} TruthEntry
 * @typedef {{ t: number, flow: string, direction: string, dropsQueue?: number, dropsLoss?: number,
 *   oneWayDelayMsP50?: number|null, [field: string]: unknown }} FlowTruthEntry  a kernel flow's tunnel, one direction, one second
 * @typedef {{ atS?: number|null, peer?: string|null, message?: string }} ReportError
 * @typedef {RunResult['resources']['rows'][number]} ResourceRow
 * @typedef {import('../lib/result/result.js').SfuRow} SfuRow
 * @typedef {{ peer: string, remote: string, atS: number, durationMs: number, [field: string]: unknown }} ViewerFreeze
 * @typedef {object} ReportResult
 * @property {unknown} [schemaVersion]  parseResult checks it; normalizeResult keeps what it is given
 * @property {string} status
 * @property {ReportError[]} errors
 * @property {ReportScenario} scenario
 * @property {ReportEnvironment} environment
 * @property {ReportEntry[]} timeline
 * @property {import('../lib/result/result.js').RunEvent[]} events
 * @property {ReportNetwork} network
 * @property {Partial<RunResult['summary']>|null} summary
 * @property {Partial<RunResult['resources']> & { rows: ResourceRow[] }} resources
 * @property {{ rows: SfuRow[], unavailable?: string|null }|null} sfu
 * @property {(Partial<import('../lib/result/result.js').ViewerResult> & { freezes: ViewerFreeze[],
 *   readCost: import('../lib/result/result.js').ViewerResult['readCost'] })|null} viewer
 * @property {{ list: Array<import('../lib/cross/flows.js').FlowListEntry>, rows: import('../lib/result/result.js').FlowRow[],
 *   truth: FlowTruthEntry[] }} flows
 * @property {RunResult['setup']} [setup]
 */

/**
 * Parses and checks the text of a result.json. Throws InputError naming the file for malformed
 * or truncated JSON, a missing or different schemaVersion, or a timeline that is not an array.
 * @param {string} text @param {string} file shown in messages
 * @returns {ReportResult}
 */
export function parseResult(text, file) {
  if (!text.trim()) {
    throw new InputError(`${file} is empty: the run did not write its result. Re-run the scenario, or delete the run directory.`);
  }
  /** @type {unknown} */
  let raw;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // Cut off mid-write: the parser fails at (or past) the last character.
    const message = error instanceof Error ? error.message : String(error);
    const position = Number(/position (\d+)/.exec(message)?.[1]);
    const truncated = /end of (JSON )?input|Unterminated/i.test(message) || position >= text.trimEnd().length;
    throw new InputError(
      truncated
        ? `${file} is truncated (${text.length} bytes, JSON ends early): the run was interrupted while writing it. Re-run the scenario.`
        : `${file} is not valid JSON (${parseReason(message)}). Fix or delete the file, or re-run the scenario.`,
      { cause: error },
    );
  }
  if (!isRecord(raw)) {
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
 * @param {object} result  result.json as parsed, each section checked here
 * @returns {ReportResult}
 */
export function normalizeResult(result) {
  const raw = /** @type {Record<string, unknown>} */ (result);
  /** @param {unknown} v @returns {Record<string, unknown>} */
  const obj = (v) => (isRecord(v) ? v : {});
  /** @param {unknown} v @returns {unknown[]} */
  const arr = (v) => (Array.isArray(v) ? v : []);
  /**
   * The records of a list, typed as the harness writes them (lib/result/result.js): a list here is checked to hold
   * records, and what a renderer needs of a record's fields (t, peer, …) is checked by the filters below.
   * @template {object} T @param {unknown} v @param {(record: Record<string, unknown>) => unknown} [keep] @returns {T[]}
   */
  const records = (v, keep = () => true) => /** @type {T[]} */ (arr(v).filter(isRecord).filter(keep));
  const scenario = obj(raw.scenario);
  const network = obj(raw.network);
  const environment = obj(raw.environment);
  return {
    ...raw,
    status: typeof raw.status === 'string' ? raw.status : 'unknown',
    errors: arr(raw.errors).map((e) => (typeof e === 'string' ? { message: e } : obj(e))),
    scenario: { ...scenario, name: typeof scenario.name === 'string' ? scenario.name : 'unnamed', reference: /** @type {ScenarioReference|null} */ (scenario.reference ?? null) },
    environment: {
      ...environment,
      startedAt: typeof environment.startedAt === 'string' ? environment.startedAt : null,
      browser: obj(environment.browser),
      media: obj(environment.media),
    },
    timeline: records(raw.timeline, (e) => Number.isFinite(e.t) && e.peer),
    events: records(raw.events),
    network: {
      ...network,
      links: Object.fromEntries(Object.entries(obj(network.links)).map(([k, v]) => [k, obj(v)])),
      routes: /** @type {Record<string, string[]>} */ (Object.fromEntries(Object.entries(obj(network.routes))
        .filter(([, v]) => Array.isArray(v) && v.every((l) => typeof l === 'string')))),
      configured: records(network.configured),
      truth: Array.isArray(network.truth) ? records(network.truth) : null,
      commands: records(network.commands),
      scheduleEvents: records(network.scheduleEvents),
    },
    summary: raw.summary && typeof raw.summary === 'object' ? /** @type {Partial<RunResult['summary']>} */ (raw.summary) : null,
    resources: { ...obj(raw.resources), rows: records(obj(raw.resources).rows, (row) => Number.isFinite(row.t) && typeof row.process === 'string') },
    sfu: raw.sfu && typeof raw.sfu === 'object' ? {
      ...obj(raw.sfu),
      rows: records(obj(raw.sfu).rows, (row) => Number.isFinite(row.t) && typeof row.peer === 'string' && typeof row.feed === 'string'),
    } : null,
    viewer: raw.viewer && typeof raw.viewer === 'object' ? {
      .../** @type {Partial<import('../lib/result/result.js').ViewerResult>} */ (obj(raw.viewer)),
      freezes: records(obj(raw.viewer).freezes, (f) => Number.isFinite(f.atS) && Number.isFinite(f.durationMs) && typeof f.peer === 'string'),
      readCost: /** @type {import('../lib/result/result.js').ViewerResult['readCost']} */ (obj(obj(raw.viewer).readCost)),
    } : null,
    flows: {
      ...obj(raw.flows),
      list: records(obj(raw.flows).list, (f) => typeof f.name === 'string'),
      rows: records(obj(raw.flows).rows, (row) => Number.isFinite(row.t) && typeof row.flow === 'string'),
      truth: records(obj(raw.flows).truth, (row) => Number.isFinite(row.t) && typeof row.flow === 'string' && typeof row.direction === 'string'),
    },
  };
}

/**
 * Reads, checks and normalizes a result.json: only a regular file of at most MAX_RESULT_FILE_BYTES, so a FIFO,
 * a device or a huge file put in a run directory is refused before it is read.
 * @param {string} file @param {string} [shown] the file as messages name it
 * @returns {Promise<ReportResult>}
 */
export async function loadResult(file, shown = file) {
  const text = readInputText(file, {
    shown, what: 'result.json', maxBytes: MAX_RESULT_FILE_BYTES, nextStep: 'pass a run directory that holds a result.json',
  });
  return parseResult(text, shown);
}
