// The run report's layer tables (pure HTML) under the "Received layers" charts: the checks of a simulcast/SVC call
// (lib/result/layer-checks.js) and the layer switches the harness asked for. Every value comes from result.json and is
// escaped; layersOf (layer-series.js) has already dropped malformed rows.
import { LAYERS_SECTION_ID, layersOf } from './layer-series.js';
import { escapeHtml, formatClock, formatNumber, statusBadge } from './format.js';

/** @typedef {import('./layer-series.js').ReportLayers} ReportLayers @typedef {import('./layer-series.js').LayerPick} LayerPick */

/** Switches listed in full; more are cut, with a count. */
const MAX_SWITCH_ROWS = 500;

/** @param {string[]} head */
const thead = (head) => `<thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>`;

/** @param {ReportLayers} layers */
export function renderLayerChecks(layers) {
  if (!layers.checks.length) return '<p class="empty">No layer check was recorded.</p>';
  const rows = layers.checks.map((c) => `<tr data-check="${escapeHtml(c.check)}" data-peer="${escapeHtml(c.peer)}"><th scope="row">${escapeHtml(c.check)}</th>`
    + `<td>${escapeHtml(c.peer)}</td><td>${c.passed === null ? '—' : statusBadge(c.passed ? 'passed' : 'failed')}</td><td class="what">${escapeHtml(c.detail)}</td></tr>`);
  const failed = layers.checks.filter((c) => c.passed === false).length;
  return `<h3>Layer checks</h3><div class="scroll"><table class="summary layer-checks">${thead(['Check', 'Peer', 'Passed', 'Detail'])}<tbody>${rows.join('')}</tbody></table></div>
<p class="caption">${failed ? `${failed} of ${layers.checks.length} checks failed` : `All ${layers.checks.length} checks passed`}; they are recorded, not the run's status.
In the window after the warm-up: <b>layersSent</b>, each layer of a simulcast publisher sent at its resolution in at least 80 % of the seconds;
<b>lowerLayersBelowHigher</b>, the median rate rises layer by layer; <b>openLinkOnTop</b>, a subscriber on an unlimited downlink receives every
feed on its top layer (or the lower one its publisher was sending) in at least 80 % of the seconds. Over the call, <b>followsDownlinkCap</b>: after each change of a subscriber's downlink rate
it receives lower layers (lowered) or higher ones (raised), and how long each move took; <b>followsDownlinkTrace</b>, for a downlink on a
capacity trace: higher layers in the third of the seconds the trace was highest (its mean over the 3 s before) than in the third it was lowest.</p>`;
}

/** @param {LayerPick|null} p */
const pick = (p) => (p ? `${p.spatial ?? '—'} / ${p.temporal ?? '—'}` : '—');

/** @param {ReportLayers} layers */
export function renderLayerSwitches(layers) {
  const { switches } = layers;
  if (!switches.length) return '<p class="caption">No layer switch was asked for: the SFU chose the layers itself.</p>';
  const rows = switches.slice(0, MAX_SWITCH_ROWS).map((s) => `<tr><td>${formatNumber(s.atS, 1)} s</td><td>${formatNumber(s.decidedAtS, 1)}</td>`
    + `<td>${escapeHtml(s.peer)}</td><td>${escapeHtml(s.feed)}</td><td>${pick(s.from)}</td><td>${pick(s.to)}</td>`
    + `<td class="what">${escapeHtml(s.cause)}</td><td>${formatNumber(s.budgetKbps, 0)}</td></tr>`);
  const more = switches.length > MAX_SWITCH_ROWS ? `<p class="caption">… ${switches.length - MAX_SWITCH_ROWS} more in result.json.</p>` : '';
  const head = ['At', 'Decided at (s)', 'Subscriber', 'Feed', 'From (spatial / temporal)', 'To (spatial / temporal)', 'Cause', 'Budget (kbps)'];
  return `<details${switches.length <= 20 ? ' open' : ''}><summary>Layer switches the harness asked for (${switches.length}, `
    + `${formatClock(switches[0].atS)}–${formatClock(switches.at(-1)?.atS)})</summary>`
    + `<div class="scroll"><table class="summary compact layer-switches">${thead(head)}<tbody>${rows.join('')}</tbody></table></div>${more}</details>`;
}

/**
 * The tables to put under the "Received layers" charts, keyed by that section's id (render-run.js renderChartSections);
 * none for a run without `layers`.
 * @param {object} result normalized
 * @returns {Record<string, string>}
 */
export function layerTables(result) {
  const layers = layersOf(result);
  if (!layers) return {};
  const none = layers.received.length ? '' : '<p class="empty">No subscriber\'s received layer was recorded.</p>';
  return {
    [LAYERS_SECTION_ID]: `${none}<p class="caption">Each line is the layer a subscriber received of a feed (the publisher's layer nearest the picture's
height; the tooltip gives the picture, rate and frame rate), feeds drawn a little apart so lines on one layer stay visible;${layers.switches.length
    ? ' the triangles are the layers the harness asked the SFU for, when it asked;' : ''} the dashed step line is the subscriber's configured downlink
capacity (right axis).</p>
${renderLayerSwitches(layers)}${renderLayerChecks(layers)}`,
  };
}
