// The run report's speaking turns (pure): each peer's talk spurts, and per received stream whether its level follows its
// sender's spurts (result.json `talk`, lib/audio/talk.js), as a table and a chart per receiving peer.
import { escapeHtml, formatNumber, isFiniteNumber } from './format.js';
import { safeId, tint, withGaps } from './chart-series.js';
import { isRecord } from '../lib/input/validate.js';
import { renderLipSync } from './render-lip-sync.js';
import { MAX_PAUSE_TO_SPURT_LEVEL, MIN_TALK_CORRELATION, P59 } from '../lib/audio/talk.js';

/** @typedef {import('../lib/audio/talk.js').TalkResult} TalkResult */

/** result.json's `talk` when it has one (this harness wrote it: only its presence is checked). @param {unknown} result */
function talkOf(result) {
  const talk = isRecord(result) ? result.talk : null;
  if (!isRecord(talk) || !Array.isArray(talk.streams) || !isRecord(talk.peers)) return null;
  return /** @type {TalkResult} */ (/** @type {unknown} */ (talk));
}

/**
 * The report's audio sections, lip sync then speaking turns (render-run.js is at its size limit).
 * @param {unknown} result a result.json
 */
export const renderAudioSections = (result) => [renderLipSync(result), renderTalk(result)].filter(Boolean).join('\n');

/** The seconds of [fromS, toS] the spurts cover. @param {Array<[number, number]>} spurts @param {[number, number]} windowS */
const talkSeconds = (spurts, [fromS, toS]) => spurts.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, toS) - Math.max(a, fromS)), 0);

/**
 * @param {unknown} result a result.json
 * @returns {string} '' when the scenario had no speaking turns
 */
export function renderTalk(result) {
  const talk = talkOf(result);
  if (!talk) return '';
  /** @param {unknown} value @param {number} [decimals] */
  const n = (value, decimals = 0) => formatNumber(isFiniteNumber(value) ? value : null, decimals);
  const windowLength = talk.windowS[1] - talk.windowS[0];
  const peerRows = Object.entries(talk.peers).map(([peer, { fileStartS, spurts }]) => {
    const inWindow = spurts.filter(([a, b]) => b > talk.windowS[0] && a < talk.windowS[1]);
    const share = windowLength > 0 ? (100 * talkSeconds(spurts, talk.windowS)) / windowLength : null;
    return `<tr><th scope="row">${escapeHtml(peer)}</th><td>${n(fileStartS, 2)}</td><td>${n(inWindow.length)}</td><td>${n(share, 0)}</td>`
      + `<td>${escapeHtml(inWindow.slice(0, 8).map(([a, b]) => `${n(a, 1)}–${n(b, 1)}`).join(', '))}${inWindow.length > 8 ? ', …' : ''}</td></tr>`;
  });
  const verdict = (/** @type {boolean|null} */ passed) => (passed === null ? 'not checked' : passed ? 'follows' : 'does not follow');
  const streamRows = talk.streams.map(({ peer, remote, check: c }) => `<tr><th scope="row">${escapeHtml(`${remote} → ${peer}`)}</th>`
    + `<td>${n(c.correlation, 2)}</td><td>${n(c.lagS, 1)}</td><td>${n(c.meanSpurtLevel, 4)}</td><td>${n(c.meanPauseLevel, 4)}</td>`
    + `<td>${n(c.spurtSeconds)} / ${n(c.pauseSeconds)} of ${n(c.seconds)}</td><td title="${escapeHtml(c.reason)}">${verdict(c.passed)}</td></tr>`);
  /** @param {string[]} head @param {string[]} rows */
  const table = (head, rows) => `<table class="summary talk"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>`
    + `<tbody>${rows.join('')}</tbody></table>`;
  const model = talk.model === 'p59'
    ? `each peer on its own ITU-T P.59 on/off model (talk spurts ${P59.meanTalkSpurtS} s, pauses ${P59.meanPauseS} s on average, exponential, seeded)`
    : 'the spurts the scenario lists';
  return `<section id="talk" class="block"><h2>Speaking turns</h2>
${table(['Peer', 'Talk file starts (s)', 'Spurts in the window', 'Talking (% of the window)', 'Spurts (s, media clock)'], peerRows)}
${table(['Stream', 'Correlation', 'Lag (s)', 'Level in spurts', 'Level in pauses', 'Spurt / pause seconds', 'Level follows the spurts'], streamRows)}
<p class="caption">Over the measurement window. Who speaks when: ${model}; each peer's fake microphone plays speech in its spurts and digital
silence otherwise, from a file ${n(talk.periodS)} s long that loops from the peer's getUserMedia. Level: the received audio's RMS per second,
0–1 of full scale (getStats totalAudioEnergy over totalSamplesDuration). Correlation: of the level with the share of each second its sender
talked, at the lag within ±1 s where it is highest; the stream follows its sender's spurts when it is at least ${MIN_TALK_CORRELATION} and
the mean level in pause seconds (no spurt within 0.25 s) is at most ${MAX_PAUSE_TO_SPURT_LEVEL} of that in spurt seconds (spoken at least half
the second). One-second resolution: spurts shorter than a second count as part of one.</p></section>`;
}

/**
 * The chart: per receiving peer, each remote's received level and, on the second axis, when that remote talked.
 * @param {unknown} result a result.json @param {{ colorOf: (peer: string) => string }} charts
 * @returns {import('./chart-series.js').Section|null}
 */
export function buildTalkSection(result, { colorOf }) {
  const talk = talkOf(result);
  if (!talk || !talk.streams.length) return null;
  const receivers = [...new Set(talk.streams.map((s) => s.peer))];
  const panels = receivers.map((peer) => ({
    id: safeId(`talk-${peer}`), title: `What ${peer} hears: level per remote, and when it talked`, yLabel: 'level (RMS, 0-1)', y2Label: 'talking',
    series: talk.streams.filter((s) => s.peer === peer).flatMap(({ remote, levels }) => {
      const corners = talk.peers[remote].spurts.flatMap(([a, b]) => [[a, 0], [a, 1], [b, 1], [b, 0]]);
      return [
        { label: `${remote} → ${peer} level`, ...withGaps(levels), color: colorOf(remote) },
        {
          label: `${remote} talking`, x: corners.map(([t]) => t), y: corners.map(([, on]) => on), color: tint(colorOf(remote), 0.5),
          axis: /** @type {const} */ ('y2'), width: 1, configured: true,
        },
      ];
    }),
  }));
  return { id: 'talk', title: 'Speaking turns', subtitle: 'received audio level per second against the sender\'s talk spurts', panels };
}
