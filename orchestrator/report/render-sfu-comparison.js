// The "SFUs side by side" section (pure HTML) of the compare page and a suite's page: per subscriber, one column per
// run grouped by SFU, the figures of sfu-comparison.js. Every value comes from result.json and is escaped.
import { escapeHtml, formatNumber, statusBadge } from './format.js';

/** @typedef {import('./sfu-comparison.js').SfuComparison} SfuComparison @typedef {import('./sfu-comparison.js').SfuRun} SfuRun */
/** @typedef {import('./sfu-comparison.js').SubscriberFigures} SubscriberFigures */

const NOT_MEASURED = '<span class="note">not measured</span>';
/** Received layer changes listed in a cell; more are counted. */
const MAX_SWITCHES = 12;

/** @param {number|null} kbps */
const rate = (kbps) => (kbps === null ? 'unlimited' : `${formatNumber(kbps, 0)} kbps`);

/**
 * How long a move took; a cap that found the subscriber on its lowest layers, or frozen, needed none (layer-checks.js).
 * @param {import('./sfu-comparison.js').CapMove} m
 */
const moveText = (m) => (m.afterS !== null ? `<b>${formatNumber(m.afterS, 1)} s</b>`
  : m.direction === 'down' && (m.fromLevel ?? 0) === 0 ? 'none needed (on its lowest layers or frozen)' : '<b>no move</b>');

/** A subscriber's downlink over the call, from the first run that recorded it. @param {SfuComparison} c @param {string} peer */
function downlinkText(c, peer) {
  const changes = c.runs.map((run) => run.subscribers.find((s) => s.peer === peer)?.received?.downlink ?? []).find((d) => d.length) ?? [];
  if (changes.length < 2) return changes.length && changes[0].rateKbps !== null ? `downlink ${rate(changes[0].rateKbps)}` : 'open downlink';
  return `downlink ${changes.map((d) => `${rate(d.rateKbps)} from ${formatNumber(d.atS, 1)} s`).join(' → ')}`;
}

/**
 * The rows of a subscriber's table: a label and, per run, a cell from that run's figures (null: not measured).
 * @param {SfuComparison} c @param {string} peer
 * @returns {Array<{ label: string, key: string, cell: (s: SubscriberFigures) => string|null }>}
 */
function rowsOf(c, peer) {
  const received = c.runs.map((run) => run.subscribers.find((s) => s.peer === peer)?.received ?? null);
  const layerLabels = new Map();
  for (const r of received) for (const l of r?.layers ?? []) if (!layerLabels.has(l.layer)) layerLabels.set(l.layer, l.label);
  return [
    ...[...layerLabels].sort(([a], [b]) => b - a).map(([layer, label]) => ({
      label: `On ${label}`, key: `layer-${layer}`,
      /** @param {SubscriberFigures} s */
      cell: (s) => {
        const time = s.received?.layers.find((l) => l.layer === layer);
        return s.received ? `${formatNumber(time?.seconds ?? 0, 1)} s <span class="note">(${formatNumber((time?.share ?? 0) * 100, 0)} %)</span>` : null;
      },
    })),
    {
      label: 'No picture', key: 'no-picture',
      cell: (s) => (s.received ? `${formatNumber(s.received.noPictureS, 1)} s <span class="note">(${formatNumber((s.received.noPictureS / s.received.windowS) * 100, 0)} %)</span>` : null),
    },
    {
      label: 'Received layer changes', key: 'switches',
      cell: (s) => {
        if (!s.received) return null;
        const { switches } = s.received;
        const listed = switches.slice(0, MAX_SWITCHES).map((w) => `${formatNumber(w.atS, 1)} s ← ${escapeHtml(w.feed)} L${w.from}→L${w.to}`);
        return `${switches.length}${listed.length ? `: ${listed.join('; ')}${switches.length > MAX_SWITCHES ? '; …' : ''}` : ''}`;
      },
    },
    {
      label: 'Moves after a cap change', key: 'cap-moves',
      cell: (s) => {
        if (!s.received) return null;
        if (!s.received.capMoves.length) return '<span class="note">no cap change</span>';
        return s.received.capMoves.map((m) => `${escapeHtml(m.direction)} at ${formatNumber(m.atS, 1)} s (${rate(m.rateKbps)}): ${moveText(m)}`).join('<br>');
      },
    },
    {
      label: 'Freezes as seen', key: 'freezes',
      cell: (s) => (s.freezes ? `${formatNumber(s.freezes.count, 0)} · ${formatNumber(s.freezes.totalMs / 1000, 2)} s` : null),
    },
    {
      label: 'Glass-to-glass median / p95 (ms)', key: 'glass-to-glass',
      cell: (s) => s.glassToGlassMs?.map((d) => `← ${escapeHtml(d.feed)} ${formatNumber(d.median, 0)} / ${formatNumber(d.p95, 0)}`).join('<br>') ?? null,
    },
    {
      label: 'VMAF mean', key: 'vmaf',
      cell: (s) => s.vmaf?.map((v) => `← ${escapeHtml(v.feed)} ${formatNumber(v.mean, 1)}`).join('<br>') ?? null,
    },
  ];
}

/** @param {SfuRun} run */
const runHead = (run) => `<th scope="col" data-sfu="${escapeHtml(run.sfu ?? '')}">${escapeHtml(run.sfu ?? 'no SFU')}${run.sfuVersion ? ` <span class="note">${escapeHtml(run.sfuVersion)}</span>` : ''}`
  + `<br><span class="note">${run.href ? `<a href="${escapeHtml(run.href)}">${escapeHtml(run.label)}</a>` : escapeHtml(run.label)} · ${escapeHtml(run.emulator ?? '')}</span> ${statusBadge(run.status)}</th>`;

/**
 * One scenario's runs through several SFUs: a table per subscriber.
 * @param {SfuComparison} c @param {number} [level] the subscribers' heading level
 * @returns {string}
 */
export function renderSfuComparison(c, level = 3) {
  if (!c.peers.length) return `<p class="empty">No subscriber was measured in these runs (${c.runs.map((run) => escapeHtml(run.label)).join(', ')}): not measured.</p>`;
  const head = `<thead><tr><th scope="col">Subscriber</th>${c.runs.map(runHead).join('')}</tr></thead>`;
  const tables = c.peers.map((peer) => {
    const rows = rowsOf(c, peer).map((row) => `<tr data-row="${row.key}"><th scope="row">${escapeHtml(row.label)}</th>${c.runs.map((run) => {
      const figures = run.subscribers.find((s) => s.peer === peer);
      return `<td data-sfu="${escapeHtml(run.sfu ?? '')}">${(figures && row.cell(figures)) ?? NOT_MEASURED}</td>`;
    }).join('')}</tr>`);
    return `<h${level} data-peer="${escapeHtml(peer)}">${escapeHtml(peer)} <small class="note">${escapeHtml(downlinkText(c, peer))}</small></h${level}>
<div class="scroll"><table class="summary compact sfu-side-by-side" data-peer="${escapeHtml(peer)}">${head}<tbody>${rows.join('')}</tbody></table></div>`;
  });
  return `${tables.join('\n')}
<p class="caption">Per subscriber and run, in the measurement window: the seconds it received each layer (the publisher's layer nearest the
picture's height), averaged over the feeds it receives, and their share of the window; no picture: seconds without a decoded frame or a
row. Received layer changes: the second the received layer of a feed changed. Moves after a cap change: how long after each change of its
downlink rate it received lower (down) or higher (up) layers (followsDownlinkCap; no move: not before the next change). Freezes as seen: count ·
total over its feeds, as the viewer saw them. Glass-to-glass and VMAF per feed it receives (summary.viewer). Not measured: the run has no
such figure (no simulcast layers, no viewer figures, VMAF not available).</p>`;
}

/**
 * The section on a page: one block per scenario run through several SFUs; '' when there is none.
 * @param {SfuComparison[]} comparisons
 * @param {{ titled?: boolean }} [options] titled: name each scenario (a suite page; the compare page has one)
 */
export function renderSfuSection(comparisons, { titled = false } = {}) {
  if (!comparisons.length) return '';
  const blocks = comparisons.map((c) => `${titled ? `<h3 class="scenario">${escapeHtml(c.scenario)} <small class="note">${c.sfus.map(escapeHtml).join(' · ')}</small></h3>` : ''}${renderSfuComparison(c, titled ? 4 : 3)}`);
  return `<section class="block" id="sfus"><h2>SFUs side by side</h2>
<p class="note">Which SFU kept each subscriber on which layer, how fast it moved when the subscriber's link changed, and what the viewer saw.</p>
${blocks.join('\n')}</section>`;
}
