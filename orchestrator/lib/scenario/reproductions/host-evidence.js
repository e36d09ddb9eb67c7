// What a run's result.json tells of the host's hand in its figures (pure), kept in the committed run records
// (docs/reproduction/runs.json) so the page's graded verdicts (host-bound.js) can be rebuilt without the run
// directories: the relay's late seconds and how late, and per peer the seconds its encoder was CPU-limited.
// A count is 0 where it was measured and none was found; a part is null where the run did not measure it.
import { hostStalled } from '../../devices/cpu-limit.js';
import { constrainedPeers } from '../../devices/devices.js';
import { fieldOf, isRecord, pathOf } from '../../input/validate.js';
import { finiteOrNull } from '../../stats/statistics.js';
import { byCodeUnit } from '../../stats/order.js';

/** The relay's exactness per packet path (lateness at p99 it tolerates, network.emulatorLoad's `behind`); 1 ms when unnamed. */
const LIMIT_MS = Object.freeze({ native: 1, dgram: 2 });

/**
 * A delay figure's per-second value can be read up to this many seconds after a late datagram crossed (an RTCP report
 * answered the next second): the late seconds counted start this long before the measurement window.
 */
export const REPORT_LAG_S = 2;

/**
 * @typedef {object} RelayEvidence
 * @property {[number, number]} windowS     the measurement window (from, to], whose seconds the figures average
 * @property {number} measuredS             the relay's rows in (from − REPORT_LAG_S, to]
 * @property {number} lateS                 of those, seconds whose latest datagram left later than the packet path's limit
 * @property {number} lateMaxMs             the latest of them (0 when none)
 * @property {Array<{ upToMs: number, seconds: number }>} lateByMs  the late seconds by their latest datagram, in powers of 2 ms
 * @property {number} behindS               seconds over the limit at p99 (the relay's own "fell behind")
 * @property {number|null} hostStallS       late seconds in which the host held the relay off the CPU as long; null: not measured
 *
 * @typedef {object} PeerCpuEvidence
 * @property {number} limitedS   seconds its encoder was CPU-limited: the browser said `cpu` or the harness's verdict did
 * @property {number} measuredS  seconds with a verdict (a qualityLimitationReason, or judged by the harness)
 * @property {boolean} byDesign  the scenario constrains its CPU on purpose
 *
 * @typedef {object} HostEvidence
 * @property {RelayEvidence|null} relay  null: the emulator does not measure itself (netem), or an older result
 * @property {{ peers: Record<string, PeerCpuEvidence>, saturatedShare: number|null }|null} cpu  null: no verdicts
 *   in the window; saturatedShare: of the seconds, those the call's processes kept ≥ 90 % of all cores busy (null: not sampled)
 */

/**
 * The measurement window (warmupS, durationS] of a result, or null.
 * @param {unknown} result @returns {[number, number]|null}
 */
function windowOf(result) {
  const fromS = finiteOrNull(pathOf(result, 'scenario', 'warmupS'));
  const toS = finiteOrNull(pathOf(result, 'scenario', 'durationS'));
  return fromS !== null && toS !== null && toS > fromS ? [fromS, toS] : null;
}

/** The power of 2 ms at or above a lateness. @param {number} ms */
const bucketOf = (ms) => 2 ** Math.max(0, Math.ceil(Math.log2(ms)));

/**
 * @param {unknown} result @param {[number, number]} windowS
 * @returns {RelayEvidence|null}
 */
export function relayEvidence(result, [fromS, toS]) {
  const load = pathOf(result, 'network', 'emulatorLoad');
  if (!Array.isArray(load)) return null;
  const rows = load.filter((row) => {
    const t = finiteOrNull(fieldOf(row, 't'));
    return t !== null && t > fromS - REPORT_LAG_S && t <= toS;
  });
  /** @type {Map<number, number>} */
  const byBucket = new Map();
  let lateS = 0;
  let lateMaxMs = 0;
  let stalls = 0;
  for (const row of rows) {
    const lateMs = finiteOrNull(fieldOf(row, 'lateMaxMs'));
    const packetPath = fieldOf(row, 'packetPath');
    const limitMs = packetPath === 'native' || packetPath === 'dgram' ? LIMIT_MS[packetPath] : LIMIT_MS.native;
    if (lateMs === null || lateMs <= limitMs) continue;
    lateS += 1;
    lateMaxMs = Math.max(lateMaxMs, lateMs);
    byBucket.set(bucketOf(lateMs), (byBucket.get(bucketOf(lateMs)) ?? 0) + 1);
    if (isRecord(row) && hostStalled(/** @type {import('../../devices/cpu-limit.js').LoadEntry} */ (row))) stalls += 1;
  }
  const stallMeasured = rows.some((row) => isRecord(row) && ('timerWakeMaxMs' in row || 'offCpuMaxMs' in row));
  return {
    windowS: [fromS, toS], measuredS: rows.length, lateS, lateMaxMs,
    lateByMs: [...byBucket].sort(([a], [b]) => a - b).map(([upToMs, seconds]) => ({ upToMs, seconds })),
    behindS: rows.filter((row) => fieldOf(row, 'behind') === true).length,
    hostStallS: stallMeasured ? stalls : null,
  };
}

/**
 * Per peer, its CPU-limited seconds in the window: the browser's qualityLimitationReason from the timeline, joined
 * with the harness's own verdict (summary.cpuLimitation.harness, which a throttled Chromium's `none` hides).
 * @param {unknown} result @param {[number, number]} windowS
 * @returns {HostEvidence['cpu']}
 */
export function cpuEvidence(result, [fromS, toS]) {
  /** @type {Map<string, { measured: Set<number>, limited: Set<number>, judgedS: number }>} */
  const peers = new Map();
  const peerOf = (/** @type {string} */ name) => peers.get(name)
    ?? peers.set(name, { measured: new Set(), limited: new Set(), judgedS: 0 }).get(name);
  const timeline = fieldOf(result, 'timeline');
  for (const entry of Array.isArray(timeline) ? timeline : []) {
    const t = finiteOrNull(fieldOf(entry, 't'));
    const peer = fieldOf(entry, 'peer');
    const reason = pathOf(entry, 'video', 'qualityLimitationReason');
    if (t === null || !(t > fromS && t <= toS) || typeof peer !== 'string' || typeof reason !== 'string') continue;
    const counts = /** @type {{ measured: Set<number>, limited: Set<number> }} */ (peerOf(peer));
    counts.measured.add(Math.round(t));
    if (reason === 'cpu') counts.limited.add(Math.round(t));
  }
  const harness = pathOf(result, 'summary', 'cpuLimitation', 'harness', 'peers');
  for (const [name, verdict] of Object.entries(isRecord(harness) ? harness : {})) {
    const seconds = fieldOf(verdict, 'seconds');
    const counts = /** @type {{ limited: Set<number>, judgedS: number }} */ (peerOf(name));
    counts.judgedS = finiteOrNull(fieldOf(verdict, 'judgedS')) ?? 0;
    for (const t of Array.isArray(seconds) ? seconds : []) if (typeof t === 'number') counts.limited.add(t);
  }
  // constrainedPeers reads each field of the devices read back with ?. and ??.
  const byDesign = constrainedPeers(/** @type {Parameters<typeof constrainedPeers>[0]} */ (pathOf(result, 'scenario', 'devices')));
  const measured = [...peers].map(([name, p]) => [name, {
    limitedS: p.limited.size, measuredS: Math.max(p.measured.size, p.judgedS), byDesign: byDesign.has(name),
  }]).filter(([, p]) => /** @type {PeerCpuEvidence} */ (p).measuredS > 0).sort(([a], [b]) => byCodeUnit(String(a), String(b)));
  const saturatedShare = finiteOrNull(pathOf(result, 'resources', 'hostSaturation', 'share'));
  return measured.length ? { peers: Object.fromEntries(measured), saturatedShare } : null;
}

/**
 * A run's evidence; null for a result without a measurement window.
 * @param {unknown} result a result.json of any harness version
 * @returns {HostEvidence|null}
 */
export function hostEvidenceOf(result) {
  const windowS = windowOf(result);
  return windowS ? { relay: relayEvidence(result, windowS), cpu: cpuEvidence(result, windowS) } : null;
}
