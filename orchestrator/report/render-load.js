// The run report's load participants (pure): result.json `load` (lib/media/load-participants.js), apart from the
// measured peers: per participant what it sent and received, the NACKs and PLIs it answered, and whether its links
// were shaped.
import { escapeHtml, formatNumber } from './format.js';
import { isRecord } from '../lib/input/validate.js';
import { describeLoadSubscription } from '../lib/media/load-participants.js';

/** @typedef {ReturnType<typeof import('../lib/media/load-participants.js').loadSection>} LoadResult */

/** result.json's `load` when it has one (this harness wrote it: only its presence is checked). @param {unknown} result */
function loadOfResult(result) {
  const load = isRecord(result) ? result.load : null;
  if (!isRecord(load) || !Array.isArray(load.rows) || !Array.isArray(load.participants)) return null;
  return /** @type {LoadResult} */ (/** @type {unknown} */ (load));
}

/**
 * @param {unknown} result a result.json
 * @returns {string} '' when the room had no load participants
 */
export function renderLoad(result) {
  const load = loadOfResult(result);
  if (!load) return '';
  const rows = load.participants.map((name) => {
    const mine = load.rows.filter((row) => row.participant === name);
    /** @param {'sentPackets'|'receivedPackets'|'nacksReceived'|'plisReceived'} field */
    const sum = (field) => mine.reduce((total, row) => total + row[field], 0);
    const summary = load.summary[name];
    return `<tr><th scope="row">${escapeHtml(name)}</th><td>${formatNumber(mine.length, 0)}</td><td>${formatNumber(summary?.sentKbpsMean ?? null, 0)}</td>`
      + `<td>${formatNumber(summary?.receivedKbpsMean ?? null, 0)}</td><td>${formatNumber(sum('sentPackets'), 0)}</td>`
      + `<td>${formatNumber(sum('receivedPackets'), 0)}</td><td>${formatNumber(sum('nacksReceived'), 0)}</td><td>${formatNumber(sum('plisReceived'), 0)}</td></tr>`;
  });
  const head = ['Participant', 'Seconds', 'Sent (kbps, mean)', 'Received (kbps, mean)', 'RTP packets sent', 'RTP packets received', 'NACKed packets', 'PLI/FIR'];
  return `<section id="load" class="block"><h2>Load participants</h2>
<table class="summary load"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="caption">Not measured peers: Pion processes (orchestrator/sfu/load-peer) publishing the run's media as pre-encoded VP8 simulcast
(three layers) and Opus, subscribing to ${escapeHtml(describeLoadSubscription(load))}, without decoding.
RTP on the wire over the whole call (header included, retransmissions included), from their own counters once a second.
The browsers' getStats samples them as any remote; the viewer does not read their frames (they carry no capture time).
${load.linksShaped ? 'Their media crossed links of their own (<code>load0.up</code>, …: the scenario\'s <code>network.link</code> up, unshaped down), '
    + 'as a page\'s does: the network section has their links.'
    : `<strong>Their links are not shaped</strong>: their media reaches the SFU directly, outside the emulated network${
      typeof load.linksUnshapedWhy === 'string' ? ` (${escapeHtml(load.linksUnshapedWhy)})` : ''}.`}</p>
</section>`;
}
