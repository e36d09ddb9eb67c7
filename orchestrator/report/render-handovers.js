// The run report's handovers (pure HTML), inside its "Network path" section: per handover (lib/result/handover.js) the
// moved peer's old and new address, the outage each stream's viewer saw, each connection's candidate pair before and
// after, the pages' ICE restarts and the time back to a steady rate. Every value comes from result.json and is escaped.
import { isRecord } from '../lib/input/validate.js';
import { recordsOf, statusBadge, textCell as cell } from './format.js';

/** A candidate pair as the Network path table names it, with its addresses. @param {unknown} pair */
const pairCell = (pair) => (isRecord(pair)
  ? `${cell(pair.localType)}/${cell(pair.localProtocol)} → ${cell(pair.remoteType)}/${cell(pair.remoteProtocol)}<br>${cell(pair.localAddress)} → ${cell(pair.remoteAddress)}`
  : '—');

/**
 * The handovers' subsection, or '' for a run without one.
 * @param {unknown} result  result.json as read
 */
export function renderHandovers(result) {
  const handovers = recordsOf(isRecord(result) ? result.handovers : undefined);
  if (!handovers.length) return '';
  const blocks = handovers.map((h) => {
    const streams = recordsOf(h.streams).map((s) => `<tr><th scope="row">${cell(s.remote)} → ${cell(s.peer)}</th><td>${cell(s.lastFrameAtS)}</td>`
      + `<td>${cell(s.firstFrameAtS)}</td><td>${typeof s.outageMs === 'number' ? `${cell(s.outageMs)} ms` : '—'}</td></tr>`);
    const pairs = recordsOf(h.pairs).map((p) => `<tr><th scope="row">${cell(p.peer)} → ${cell(p.remote)}</th><td>${pairCell(p.before)}</td>`
      + `<td>${pairCell(p.after)}</td><td>${statusBadge(p.changed === true ? 'passed' : 'failed')}</td></tr>`);
    const outage = typeof h.outageMs === 'number' ? `${cell(h.outageMs)} ms` : 'none: a stream did not come back';
    return `<h4>${cell(h.peer)} at ${cell(h.atS ?? h.scheduledAtS)} s: ${cell(h.fromAddress)} → ${cell(h.toAddress)}</h4>
<p>Outage (longest, as seen): <b>${outage}</b> · ICE restarts: ${cell(h.iceRestarts)} · time to steady rate: ${typeof h.timeToSteadyS === 'number' ? `${cell(h.timeToSteadyS)} s` : '—'}</p>
<div class="scroll"><table class="summary compact handover-streams"><thead><tr><th scope="col">Stream</th><th scope="col">Last frame before (s)</th><th scope="col">First frame after (s)</th><th scope="col">Outage</th></tr></thead><tbody>${streams.join('')}</tbody></table></div>
<div class="scroll"><table class="summary compact handover-pairs"><thead><tr><th scope="col">Connection</th><th scope="col">Pair before</th><th scope="col">Pair after</th><th scope="col">New pair</th></tr></thead><tbody>${pairs.join('')}</tbody></table></div>`;
  });
  return `<h3 id="handovers">Handovers</h3>
<p>A peer moved to a new network mid-call (a new address, its old path dead); the pages restarted ICE on their own. The outage is the viewer's: the last frame shown before the move to the first after it.</p>
${blocks.join('\n')}`;
}
