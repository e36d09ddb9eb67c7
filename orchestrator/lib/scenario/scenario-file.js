/**
 * Finds, reads and validates scenario files (orchestrator/scenarios/<name>.json) and resolves them for a run.
 * Format: docs/scenario-format.md.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinNames, resolveBuiltin } from '../input/builtin-file.js';
import { InputError } from '../system/errors.js';
import { PRESETS } from '../media/media-presets.js';
import { REPO_ROOT } from '../system/paths.js';
import { readJsonFile } from '../input/json-file.js';
import { describeValue, expectFileName, expectNumber, expectObject, expectText, isOneOf, isRecord } from '../input/validate.js';
import { validateReference } from './reference.js';
import { normalizeFlows, normalizeMainCall } from '../cross/flows.js';
import { normalizeCodec } from '../media/codec.js';
import { normalizeFieldTrials } from './field-trials.js';
import { resolvePublish } from '../media/publish.js';
import { normalizeDevices } from '../devices/devices.js';
import { readTrace } from '../network/trace-file.js';
import { validatePeerBrowsers } from './peer-browsers.js';
import { validatePlacement } from '../grid/grid.js';
import { DEFAULT_DURATION_S, DEFAULT_PEERS, compileNetwork } from '../network/schedule.js';
import { rejectProfiledHandovers } from '../network/handover.js';
import { MAX_DURATION_S, MAX_PEERS } from '../input/limits.js';
import { checkResultSize } from '../result/result-size.js';
import { AUDIO_QUALITY_MODES } from '../audio/audio-windows.js';
import { MAX_AUDIO_DELAY_MS } from '../audio/lip-sync-marks.js';
import { validateTurn } from '../network/turn.js';
import { validatePeerNetwork } from '../network/nat-profile.js';
import { talkOf } from '../audio/talk.js';
import { loadOf } from '../media/load-participants.js';
import { screenShareOf } from '../media/screen-share.js';

export const SCENARIO_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));

/** J16 reports ~10 s of ramp-up once media flows; the measurement window starts after it. */
export const DEFAULT_WARMUP_S = 10;

const SCENARIO_FIELDS = ['name', 'description', 'group', 'durationS', 'warmupS', 'peers', 'topology', 'media', 'browsers', 'network', 'mainCall',
  'flows', 'reference', 'codec', 'devices', 'placement', 'mediaSource', 'publish', 'audioQuality', 'lipSync', 'turn',
  'peerNetwork', 'talk', 'load', 'screenShare', 'fieldTrials', 'bandwidthEstimation'];

/** The video rates a scenario can ask for: `rfc8867` (RFC 8867 §4.3, applied by client-app/media-source.js) or `browser` (its own). */
export const MEDIA_SOURCES = ['browser', 'rfc8867'];

/**
 * The feedback the peers' congestion control runs on (client-app/bandwidth-estimation.js): `send-side`, the browsers'
 * transport-wide feedback (the default); `remb`, receive-side estimation sent back in REMB messages (J16's Chrome).
 */
export const BANDWIDTH_ESTIMATIONS = ['send-side', 'remb'];

/** How the peers' media travels: `mesh`, every peer to every other; `sfu`, every peer to Janus and back (lib/network/topology.js). */
export const TOPOLOGIES = ['mesh', 'sfu'];

/**
 * @typedef {object} ResolvedScenario  the `scenario` object of result.json, plus the compiled network
 * @property {string} name
 * @property {string} description
 * @property {string|null} group       the catalogue entry it is one combination of (`queue-size`), or null
 * @property {string} file               repo-relative when inside the repo
 * @property {number} durationS          after time scaling or --duration
 * @property {number} nominalDurationS   as written
 * @property {number} timeScale
 * @property {number} warmupS
 * @property {number} peers          the main call's
 * @property {number} allPeers       the main call's and two per call flow (lib/cross/flow-list.js flowPeers)
 * @property {string} topology        'mesh' or 'sfu'
 * @property {Record<string, string>} media  peer → its own video preset; every other peer uses the run's (--video)
 * @property {Record<string, import('../media/publish.js').Publish>} publish  main-call peer → its simulcast or SVC publishing
 *   (docs/scenario-format.md "Publishing"; --publish over the file's); a peer not named publishes one encoding
 * @property {import('../media/codec.js').RequestedCodec|null} codec  the video codec every connection must use (--codec over the file's)
 * @property {import('../network/turn.js').TurnRequest|null} turn  every connection relayed by the run's TURN server over this
 *   transport (docs/scenario-format.md "TURN"), or null: direct
 * @property {import('../network/nat-profile.js').PeerNetworks} peerNetwork  main-call peer → its NAT and firewall
 *   (docs/scenario-format.md "Peer networks"); a peer not named is on the open network
 * @property {'browser'|'rfc8867'} mediaSource  the video rates: the browser's own, or RFC 8867 §4.3's (--media-source over the file's)
 * @property {string|null} fieldTrials  Chromium field trials for its peers (--field-trials over the file's; field-trials.js)
 * @property {'send-side'|'remb'} bandwidthEstimation  the feedback its congestion control runs on (--bandwidth-estimation over
 *   the file's; BANDWIDTH_ESTIMATIONS)
 * @property {'audio'|'speech'|null} audioQuality  ViSQOL's mode to score what each page plays out in, or null: not recorded
 *   (--audio-quality over the file's)
 * @property {{ audioDelayMs: number }|null} lipSync  the media carries lip-sync marks and every page measures the offset of
 *   what it plays (docs/scenario-format.md "Lip sync"; --lip-sync turns it on), every source's audio audioDelayMs late
 *   against its video; null: not measured
 * @property {import('../audio/talk.js').TalkPattern|null} talk  every main-call peer's talk spurts over its talk file's period
 *   (docs/scenario-format.md "Speaking turns"), or null: every peer sends the default speech
 * @property {import('../media/screen-share.js').ScreenShare|null} [screenShare]  the main-call peers that send a screen beside
 *   their camera (docs/scenario-format.md "Screen share"; --screen-share over the file's), or null: cameras only
 * @property {import('../media/load-participants.js').LoadRequest|null} [load]  an SFU call's load participants (docs/scenario-format.md
 *   "Load participants"), or null: browsers only
 * @property {Record<string, import('../devices/devices.js').Device>} devices  peer → its capture size, frame rate, CPU throttling
 *   and CPU quota
 * @property {Record<string, string>} browsers  peer → its own browser (peer-browsers.js); every other peer runs the run's
 *   (--browser)
 * @property {Record<string, string>} placement  peer → the label of the grid-node its browser runs on (--grid)
 * @property {object} network            as written
 * @property {import('../cross/flows.js').MainCall} mainCall  when its media starts and which way it flows (times scaled)
 * @property {import('../cross/flows.js').Flow[]} flows  normalised, times scaled (docs/scenario-format.md "Flows")
 * @property {import('./reference.js').Reference|null} reference
 * @property {import('../network/schedule.js').CompiledNetwork} compiled
 */

/**
 * The scenario's `media`: a video preset for some peers, so one peer of a call can send a smaller (or larger) picture.
 * @param {unknown} raw @param {number} peers @param {string} file
 * @returns {Record<string, string>}
 */
function peerMedia(raw, peers, file) {
  if (raw === undefined) return {};
  const media = expectObject(raw, `${file}: media`, Array.from({ length: peers }, (_, i) => `p${i}`),
    { what: 'an object of peer names to video presets, e.g. {"p2": "180p30"}' });
  /** @type {Record<string, string>} */
  const presets = {};
  for (const [peer, preset] of Object.entries(media)) {
    if (typeof preset !== 'string' || !Object.hasOwn(PRESETS, preset)) {
      throw new InputError(`${file}: media.${peer}: ${describeValue(preset)} is not a video preset; use one of ${Object.keys(PRESETS).join(', ')}`);
    }
    presets[peer] = preset;
  }
  return presets;
}

/** @param {string} filePath */
function displayPath(filePath) {
  const relative = path.relative(REPO_ROOT, filePath);
  return relative.startsWith('..') || path.isAbsolute(relative) ? filePath : relative;
}

const readScenarioFile = (/** @type {string} */ filePath) => readJsonFile(filePath, 'scenario', 'check the path, or give a name from `list`');

/**
 * Shipped scenarios, sorted by name in natural order.
 * @returns {{name: string, description: string, file: string}[]}
 */
export function listScenarios() {
  return builtinNames(SCENARIO_DIR).map((name) => {
    const filePath = path.join(SCENARIO_DIR, `${name}.json`);
    const raw = readScenarioFile(filePath);
    const description = typeof raw === 'object' && raw !== null && 'description' in raw ? String(raw.description) : '';
    return { name, description, file: displayPath(filePath) };
  });
}

/**
 * Loads a shipped scenario by name, or any scenario file by path (contains '/' or ends in .json).
 * @param {string} nameOrPath
 * @param {{timeScale?: number, durationS?: number, warmupS?: number, codec?: import('../media/codec.js').RequestedCodec|null,
 *   traceStepMs?: number, traceDirs?: string[], mediaSource?: string, publish?: import('../media/publish.js').Publish|null,
 *   audioQuality?: string, lipSync?: boolean, screenShare?: string[], fieldTrials?: string, bandwidthEstimation?: string}} [options]
 *   timeScale compresses the schedule and duration (smoke runs); durationS, warmupS and codec (--codec) override the file's;
 *   traceStepMs (--trace-step-ms) overrides network.traceStepMs; traceDirs (--trace-dir): folders trace files may also
 *   come from, besides the scenario file's and orchestrator/traces/ (lib/network/trace-file.js); mediaSource (--media-source)
 *   overrides the file's; publish (--publish) replaces the file's for every main-call peer; audioQuality (--audio-quality)
 *   overrides the file's; lipSync (--lip-sync) turns lip sync on over a file without it; screenShare (--screen-share):
 *   the peers that share a screen, over the file's; fieldTrials (--field-trials) and bandwidthEstimation
 *   (--bandwidth-estimation) override the file's
 * @returns {ResolvedScenario}
 */
export function loadScenario(nameOrPath, {
  timeScale = 1, durationS, warmupS: warmupOverrideS, codec: codecOverride = null, traceStepMs, traceDirs = [], mediaSource: sourceOverride,
  publish: publishOverride = null, audioQuality: audioOverride, lipSync: lipSyncFlag = false, screenShare: screenShareFlag,
  fieldTrials: trialsOverride, bandwidthEstimation: estimationOverride,
} = {}) {
  expectNumber(timeScale, 'timeScale (--time-scale)', { above: 0 });
  if (durationS !== undefined) expectNumber(durationS, 'durationS (--duration)', { above: 0, max: MAX_DURATION_S });
  if (warmupOverrideS !== undefined) expectNumber(warmupOverrideS, 'warmupS (--warmup)', { min: 0 });
  const filePath = resolveBuiltin('scenario', nameOrPath, SCENARIO_DIR);
  const file = displayPath(filePath);
  const raw = expectObject(readScenarioFile(filePath), file, SCENARIO_FIELDS);

  const name = expectFileName(raw.name, path.basename(filePath, '.json'), file, 'scenario');
  const description = expectText(raw.description, `${file}: description`);
  const nominalDurationS = raw.durationS === undefined ? DEFAULT_DURATION_S
    : expectNumber(raw.durationS, `${file}: durationS`, { above: 0, max: MAX_DURATION_S });
  const fileWarmupS = raw.warmupS === undefined ? DEFAULT_WARMUP_S : expectNumber(raw.warmupS, `${file}: warmupS`, { min: 0 });
  const warmupS = warmupOverrideS ?? fileWarmupS;
  const peers = raw.peers === undefined ? DEFAULT_PEERS : expectNumber(raw.peers, `${file}: peers`, { min: 2, max: MAX_PEERS, integer: true });
  const group = raw.group === undefined ? null : expectText(raw.group, `${file}: group`);
  if (group !== null && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(group)) {
    throw new InputError(`${file}: group: must be a name of letters, digits, '.', '_' and '-' (it is typed on the command line), got '${group}'`);
  }
  const topology = raw.topology ?? 'mesh';
  if (!isOneOf(TOPOLOGIES, topology)) {
    throw new InputError(`${file}: topology: ${describeValue(raw.topology)} is not supported: use one of ${TOPOLOGIES.join(', ')}`);
  }
  const reference = validateReference(raw.reference, `${file}: reference`);

  const scaledDurationS = Math.round(nominalDurationS * timeScale * 1e6) / 1e6;
  // The schedule is compiled at this length even when --duration cuts the run.
  if (scaledDurationS > MAX_DURATION_S) {
    throw new InputError(`${file}: durationS ${nominalDurationS} × time scale ${timeScale} is ${scaledDurationS} s; at most ${MAX_DURATION_S} s: lower --time-scale`);
  }
  const runDurationS = durationS ?? scaledDurationS;
  if (warmupS >= runDurationS) {
    const how = durationS !== undefined ? 'set by --duration' : `${nominalDurationS} s × time scale ${timeScale}`;
    const source = warmupOverrideS !== undefined ? 'set by --warmup' : 'from the file';
    throw new InputError(`${file}: warmupS (${warmupS} s, ${source}) must be less than the run's duration (${runDurationS} s, ${how}); pass --duration above ${warmupS}, a larger --time-scale, or a lower --warmup`);
  }
  const hasBottleneck = isRecord(raw.network) && raw.network.bottleneck !== undefined;
  const flows = normalizeFlows(raw.flows, {
    file, durationS: nominalDurationS, timeScale, peers, topology, hasBottleneck, maxPeers: MAX_PEERS,
  });
  const mainCall = normalizeMainCall(raw.mainCall, { file, durationS: nominalDurationS, timeScale, peers, topology });
  const allPeers = peers + 2 * flows.filter((flow) => flow.kind === 'call').length;
  const media = peerMedia(raw.media, allPeers, file);
  const publish = resolvePublish(raw.publish, publishOverride, { peers, file, topology });
  const fileCodec = normalizeCodec(raw.codec, `${file}: codec`);
  const codec = codecOverride ?? fileCodec;
  // Janus's VideoRoom forwards the codec its room was created with (VP8), whatever the pages prefer.
  if (codec && topology === 'sfu') throw new InputError(`${codecOverride ? '--codec' : `${file}: codec`}: codec selection needs a mesh call; scenario ${name} has topology sfu`);
  const mediaSource = mediaSourceOf(sourceOverride ?? raw.mediaSource, sourceOverride === undefined ? `${file}: mediaSource` : '--media-source');
  const fieldTrials = normalizeFieldTrials(trialsOverride ?? raw.fieldTrials, trialsOverride === undefined ? `${file}: fieldTrials` : '--field-trials');
  const bandwidthEstimation = bandwidthEstimationOf(estimationOverride ?? raw.bandwidthEstimation, {
    where: estimationOverride === undefined ? `${file}: bandwidthEstimation` : '--bandwidth-estimation', name, topology,
  });
  const audioQuality = audioQualityOf(audioOverride ?? raw.audioQuality, audioOverride === undefined ? `${file}: audioQuality` : '--audio-quality');
  const lipSync = lipSyncOf(raw.lipSync, `${file}: lipSync`) ?? (lipSyncFlag ? { audioDelayMs: 0 } : null);
  const devices = normalizeDevices(raw.devices, allPeers, file);
  const browsers = validatePeerBrowsers(raw.browsers, allPeers, file);
  const placement = validatePlacement(raw.placement, allPeers, file);
  const turn = validateTurn(raw.turn, { file, topology });
  const peerNetwork = validatePeerNetwork(raw.peerNetwork, { file, peers, topology, turn });
  const load = loadOf(raw.load, { file, topology, peers });
  const screenShare = screenShareOf(raw.screenShare, screenShareFlag, { file, peers, topology });
  const talk = talkOf(raw.talk, { file, name, peers, nominalDurationS, timeScale, runDurationS });
  if (talk && lipSync) throw new InputError(`${file}: talk: speaking turns and lip sync (lipSync, --lip-sync) each make their own audio; use one`);
  // Extra calls' peers have links of their own.
  const compiled = compileNetwork({
    file, durationS: nominalDurationS, peers: allPeers, topology, network: raw.network, loadPeers: load?.names,
  }, {
    timeScale, traceStepMs, loadTrace: (traceName, where) => readTrace(traceName, { baseDir: path.dirname(filePath), traceDirs, where }),
  });
  rejectProfiledHandovers(compiled.handovers ?? [], peerNetwork, file);
  checkResultSize({
    durationS: runDurationS, peers, allPeers, links: Object.keys(compiled.links).length, scheduleEvents: compiled.events.length,
  }, durationS === undefined ? `${file}: durationS` : '--duration');
  return {
    name, description, group, file, durationS: runDurationS, nominalDurationS, timeScale, warmupS, peers, allPeers, topology, media,
    browsers, placement, network: isRecord(raw.network) ? raw.network : {}, mainCall, flows, reference, codec, devices, mediaSource,
    fieldTrials, bandwidthEstimation, publish, audioQuality, lipSync, turn, peerNetwork, talk, load, screenShare, compiled,
  };
}

/**
 * A field that takes one of a list: the value, or an InputError naming the field, what it must be and the choices.
 * @template {string} T @param {unknown} value @param {readonly T[]} choices @param {string} where @param {string} what
 * @returns {T}
 */
function choiceOf(value, choices, where, what) {
  if (!isOneOf(choices, value)) throw new InputError(`${where}: ${describeValue(value)} is not ${what}: use one of ${choices.join(', ')}`);
  return value;
}

/** @param {unknown} value @param {string} where */
const mediaSourceOf = (value = 'browser', where) => choiceOf(value, /** @type {Array<'browser'|'rfc8867'>} */ (MEDIA_SOURCES), where, 'a media source');

/**
 * @param {unknown} value @param {{ where: string, name: string, topology: string }} context
 * @returns {'send-side'|'remb'}
 */
function bandwidthEstimationOf(value = 'send-side', { where, name, topology }) {
  const estimation = choiceOf(value, /** @type {Array<'send-side'|'remb'>} */ (BANDWIDTH_ESTIMATIONS), where, 'a bandwidth estimation');
  // The SFU writes its own descriptions and terminates each peer's feedback: what a page negotiates with it is the SFU's.
  if (estimation !== 'send-side' && topology === 'sfu') {
    throw new InputError(`${where}: ${estimation} needs a mesh call (the SFU negotiates its own feedback); scenario ${name} has topology sfu`);
  }
  return estimation;
}

/** @param {unknown} value @param {string} where @returns {'audio'|'speech'|null} */
function audioQualityOf(value, where) {
  if (value === undefined || value === null) return null;
  return choiceOf(value, AUDIO_QUALITY_MODES, where, 'a ViSQOL mode');
}

/**
 * `lipSync`: true, false, or `{ "audioDelayMs": n }` (every source's audio n ms late against its video; negative: early).
 * @param {unknown} value @param {string} where @returns {{ audioDelayMs: number }|null}
 */
function lipSyncOf(value, where) {
  if (value === undefined || value === false) return null;
  if (value === true) return { audioDelayMs: 0 };
  const { audioDelayMs = 0 } = expectObject(value, where, ['audioDelayMs'], { what: 'true, false or { "audioDelayMs": <ms> }' });
  return { audioDelayMs: expectNumber(audioDelayMs, `${where}.audioDelayMs`, { min: -MAX_AUDIO_DELAY_MS, max: MAX_AUDIO_DELAY_MS, integer: true }) };
}
