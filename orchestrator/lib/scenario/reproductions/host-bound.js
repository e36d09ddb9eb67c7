// How far this host could have moved a reproduction's figure (pure), from the evidence its runs recorded
// (host-evidence.js), and the graded verdict: a figure is host-limited only when that bound exceeds its own spread.
// The derivation is in docs/reproductions.md, "How far the host could have moved a figure".
import { REPORT_LAG_S } from './host-evidence.js';

/** With one run, or an IQR narrower than this, the spread a bound is compared with is this share of the median. */
export const SPREAD_SHARE = 0.05;

/** Delay figures: how many times its per-second value crosses the relay (an RTCP round trip twice). */
const DELAY_CROSSINGS = Object.freeze({ rttMs: 2, 'bottleneck.queueDelayMs': 1 });

/** Figures an encoder short of CPU lowers (sent or received video, and the totals it dominates). */
const CPU_FIGURES = Object.freeze(['video.recvKbps', 'video.recvWidth', 'video.recvHeight', 'video.recvFps', 'video.peakRecvKbps',
  'peerTotals.uplinkKbps', 'peerTotals.downlinkKbps', 'flowKbps.call:fwd']);

/** The rule as the page states it. */
export const HOST_RULE = [
  `Delay figures (RTT, queuing delay): a second whose latest datagram left the relay later than its limit (1 ms native, 2 ms dgram) `
    + `is late; a per-second value holds c crossings of the relay (RTT 2) and is read up to ${REPORT_LAG_S} s after them, so a run's `
    + `mean over n seconds moves by at most c × ${REPORT_LAG_S + 1} × (sum of the late seconds' lateness) ÷ n, and never by more than `
    + 'c × the latest datagram; lateness only adds delay, so the figure can only be too high.',
  'Video rate, resolution, frame rate and the per-peer totals: the share of seconds a peer\'s encoder was CPU-limited '
    + '(qualityLimitationReason `cpu` or the harness\'s verdict; a peer the scenario constrains on purpose does not count), '
    + 'or the host\'s cores were ≥ 90 % busy, whichever is larger: that share of the figure\'s seconds was the host\'s.',
  'A row\'s figure is the median of its runs, which moves at most by the largest run\'s bound. It is marked **host-limited** '
    + `only when that bound exceeds its spread: the IQR of the row's runs, or ${SPREAD_SHARE * 100} % of the median when that `
    + 'is larger (with one run, always); for the CPU share, the spread relative to the median. Other figures (loss, audio, '
    + 'ratios, fairness, utilisation) are not graded: the evidence bounds none of them.',
  'Records made before the evidence was kept (no `hostEvidence`): the delay bound counts only the seconds the relay fell '
    + 'behind at p99 (`behindSeconds`), each at the run\'s latest datagram, marked ≈; CPU shares were not recorded: "not measured".',
];

/**
 * @typedef {import('./host-evidence.js').HostEvidence} HostEvidence
 * @typedef {{ seconds: unknown, measuredSeconds: unknown, lateMaxMs: unknown }} BehindRecord  an older record's relay figures
 * @typedef {{ repetition: number, hostEvidence?: HostEvidence|null, behindSeconds?: BehindRecord|null, hostLimited?: boolean,
 *   emulator?: string|null, emulatorBehind?: boolean }} BoundRun
 * @typedef {{ lateS: number, measuredS: number|null, lateMaxMs: number, lateSumMs: number, figureS: number,
 *   approximate: boolean }} Lateness
 */

/** @param {unknown} value @returns {value is number} */
const finite = (value) => typeof value === 'number' && Number.isFinite(value);

/** @param {import('./host-evidence.js').RelayEvidence} relay */
const wellFormed = (relay) => [relay.lateS, relay.measuredS, relay.lateMaxMs, ...(relay.windowS ?? [])].every(finite)
  && relay.windowS[1] > relay.windowS[0] && Array.isArray(relay.lateByMs)
  && relay.lateByMs.every((b) => finite(b?.upToMs) && finite(b?.seconds));

/**
 * A run's late seconds: from its evidence, else (≈) from an older record's fell-behind seconds; null when neither.
 * @param {BoundRun} run @returns {Lateness|null}
 */
export function latenessOf(run) {
  const relay = run.hostEvidence?.relay;
  // runs.json is a committed file: a hand-edited record's evidence counts only as far as its numbers go.
  if (relay && wellFormed(relay)) {
    const lateSumMs = relay.lateByMs.reduce((sum, b) => sum + b.seconds * Math.min(b.upToMs, relay.lateMaxMs), 0);
    const figureS = relay.windowS[1] - relay.windowS[0];
    return { lateS: relay.lateS, measuredS: relay.measuredS, lateMaxMs: relay.lateMaxMs, lateSumMs, figureS, approximate: false };
  }
  const old = run.behindSeconds;
  // An older record names the relay's packet path only when it had the relay's load rows: not behind is then measured.
  if (!old && run.emulatorBehind === false && / \((native|dgram)\)$/.test(run.emulator ?? '')) {
    return { lateS: 0, measuredS: null, lateMaxMs: 0, lateSumMs: 0, figureS: 1, approximate: true };
  }
  if (!old || !finite(old.seconds) || !finite(old.measuredSeconds) || old.measuredSeconds <= 0) return null;
  // None behind needs no latest datagram (a relay that sent nothing has none).
  const lateMaxMs = old.seconds === 0 ? 0 : old.lateMaxMs;
  if (!finite(lateMaxMs)) return null;
  return {
    lateS: old.seconds, measuredS: old.measuredSeconds, lateMaxMs, lateSumMs: old.seconds * lateMaxMs,
    figureS: old.measuredSeconds, approximate: true,
  };
}

/**
 * How much the relay's late seconds could have raised a run's delay figure, in ms; null for a figure that is not a delay.
 * @param {string} path @param {Lateness} late
 */
export function delayBoundMs(path, late) {
  const crossings = /** @type {Record<string, number>} */ (DELAY_CROSSINGS)[path];
  if (!crossings) return null;
  if (late.lateS === 0) return 0;
  return Math.min(crossings * (REPORT_LAG_S + 1) * late.lateSumMs / late.figureS, crossings * late.lateMaxMs);
}

/**
 * The largest share of a run's seconds the host held its encoders back: per peer not constrained by design, and the
 * host's saturated seconds; null when not measured.
 * @param {BoundRun} run @returns {{ share: number, who: string }|null}
 */
export function cpuShareOf(run) {
  const cpu = run.hostEvidence?.cpu;
  if (!cpu) return null;
  const shares = Object.entries(cpu.peers ?? {})
    .filter(([, p]) => p?.byDesign === false && finite(p.limitedS) && finite(p.measuredS) && p.measuredS > 0)
    // A peer's name goes onto the page: one that is not a plain name (a hand-edited record) is not shown.
    .map(([peer, p]) => ({ share: p.limitedS / p.measuredS, who: `${/^[\w-]{1,32}$/.test(peer) ? peer : 'a peer'} CPU-limited` }));
  if (finite(cpu.saturatedShare)) shares.push({ share: cpu.saturatedShare, who: 'cores ≥ 90 % busy' });
  return shares.reduce((worst, s) => (s.share > worst.share ? s : worst), { share: 0, who: 'CPU-limited' });
}

/**
 * Whether a run's record shows the host's CPU holding its video back (the `cores` cause): a CPU-limited second of a
 * peer the scenario does not constrain, or of the cores ≥ 90 % busy (cpuShareOf); a record without that evidence
 * counts only with the suite's CPU flag.
 * @param {BoundRun} run
 */
export function runCpuLimited(run) {
  const cpu = cpuShareOf(run);
  return cpu ? cpu.share > 0 : run.hostLimited === true;
}

/**
 * @typedef {object} FigureGrade
 * @property {string} path
 * @property {'delay'|'cpu'} kind
 * @property {number|null} bound  ms for a delay, a share for CPU; null: not measured in some passed run
 * @property {number} spread      what the bound is compared with, in the same unit
 * @property {boolean} hostLimited
 * @property {number|null} worstRun  the run the bound comes from
 * @property {string} evidence    that run's evidence in words
 * @property {boolean} approximate  from an older record's fell-behind seconds (≈)
 */

/**
 * A row's figure graded over its passed runs; null for a figure the evidence does not bound.
 * @param {string} path
 * @param {{ median: number, q1: number, q3: number, n: number }|null} ours the row's figure
 * @param {BoundRun[]} passed the runs it is the median of
 * @returns {FigureGrade|null}
 */
export function gradeFigure(path, ours, passed) {
  const kind = path in DELAY_CROSSINGS ? 'delay' : CPU_FIGURES.includes(path) ? 'cpu' : null;
  if (!kind || !ours || !passed.length) return null;
  const iqr = ours.q3 - ours.q1;
  const floor = SPREAD_SHARE * Math.abs(ours.median);
  const spread = kind === 'delay' ? Math.max(iqr, floor) : (ours.median ? Math.max(iqr / Math.abs(ours.median), SPREAD_SHARE) : SPREAD_SHARE);
  /** @type {Array<{ run: BoundRun, bound: number, evidence: string, approximate: boolean }>} */
  const graded = [];
  for (const run of passed) {
    if (kind === 'delay') {
      const late = latenessOf(run);
      if (!late) return unmeasured(path, kind, spread, run);
      graded.push({
        run, bound: /** @type {number} */ (delayBoundMs(path, late)), approximate: late.approximate,
        evidence: late.lateS ? `${late.lateS} of ${late.measuredS ?? "?"} s late by ≤ ${ms(late.lateMaxMs)} ms` : `0 of ${late.measuredS ?? "?"} s late`,
      });
    } else {
      const cpu = cpuShareOf(run);
      if (!cpu) return unmeasured(path, kind, spread, run);
      graded.push({ run, bound: cpu.share, approximate: false, evidence: `${cpu.who} in ${percent(cpu.share)} of seconds` });
    }
  }
  const worst = graded.reduce((a, b) => (b.bound > a.bound ? b : a));
  return {
    path, kind, bound: worst.bound, spread, hostLimited: worst.bound > spread, worstRun: worst.run.repetition,
    evidence: worst.evidence, approximate: graded.some((g) => g.approximate),
  };
}

/** @param {string} path @param {'delay'|'cpu'} kind @param {number} spread @param {BoundRun} run @returns {FigureGrade} */
function unmeasured(path, kind, spread, run) {
  const flagged = kind === 'cpu' && run.hostLimited ? ' (the suite flagged it CPU-limited)' : '';
  return { path, kind, bound: null, spread, hostLimited: false, worstRun: run.repetition, evidence: `not measured${flagged}`, approximate: false };
}

/** @param {number} value */
const ms = (value) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));
/** @param {number} share */
const percent = (share) => `${Math.round(share * 100)} %`;

/**
 * A grade in words, without the figure's name (rows join the figures that read alike): "run 2: 3 of 300 s late by
 * ≤ 8.0 ms, effect ≤ 0.3 ms ≤ spread 0.4 ms".
 * @param {FigureGrade} grade
 */
export function gradePhrase(grade) {
  if (grade.bound === null) return `${grade.kind === 'delay' ? 'relay lateness' : 'CPU-limited seconds'} not measured`;
  if (grade.bound === 0) return grade.kind === 'cpu' ? 'no CPU-limited second' : grade.approximate ? 'no second fell behind (older record)' : 'no late second';
  const approx = grade.approximate ? '≈' : '';
  const [bound, spread] = grade.kind === 'delay'
    ? [`effect ≤ ${approx}${ms(grade.bound)} ms`, `${ms(grade.spread)} ms`]
    : [`share ${percent(grade.bound)}`, percent(grade.spread)];
  return `run ${grade.worstRun}: ${grade.evidence}, ${bound} ${grade.hostLimited ? `> spread ${spread}: **host-limited**` : `≤ spread ${spread}`}`;
}
