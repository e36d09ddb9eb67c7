// The report's "What the viewer saw" charts (pure): per received stream, glass-to-glass delay against the configured
// one-way delay, the frames as seen against the decoder's, and the captured frames' PSNR/SSIM, with the freezes the
// viewer saw shaded on each. Their lines are the catalogue's metrics with a `viewerChart` (lib/result/metric-catalogue.js).
import { metricAt } from './timeline.js';
import { pathSteps, routeLinks } from './network.js';
import { configuredSeries, drawnPanels, measured, roundTime, safeId, tint } from './chart-series.js';
import { METRICS } from '../lib/result/metric-catalogue.js';

/**
 * @typedef {import('./chart-series.js').SeriesSpec} SeriesSpec
 * @typedef {import('./chart-series.js').LineStyle} LineStyle
 * @typedef {import('./chart-series.js').PanelSpec} PanelSpec
 * @typedef {import('./chart-series.js').Section} Section
 * @typedef {import('./result-file.js').ReportResult} ReportResult
 * @typedef {import('./result-file.js').ReportEntry} ReportEntry
 * @typedef {import('../lib/result/metric-catalogue.js').Metric} Metric
 * @typedef {Metric & { viewerChart: NonNullable<Metric['viewerChart']> }} ViewerMetric
 */

const FREEZE_SPAN_COLOR = 'rgba(213, 94, 0, 0.18)';
const GETSTATS_COLOR = '#7f7f7f';

/**
 * A line's style by the catalogue's `viewerChart.line`, from the stream's colour: what the viewer saw in it, what
 * getStats() said in grey, so the two read apart in every panel.
 * @type {Record<string, (label: string, color: string) => LineStyle>}
 */
export const VIEWER_LINE_STYLES = {
  seen: (label, color) => ({ label, color, width: 2 }),
  'seen-p95': (label, color) => ({ label, color: tint(color, 0.4), width: 1, dash: [4, 2] }),
  'seen-max': (label, color) => ({ label, color: tint(color, 0.6), width: 1, dash: [1, 2] }),
  'seen-second': (label, color) => ({ label, color: tint(color, 0.45), width: 1.5, dash: [4, 2], axis: 'y2' }),
  'seen-count': (label, color) => ({ label, color, width: 1.5, axis: 'y2', stepped: true }),
  skipped: (label, color) => ({ label, color: tint(color, 0.5), width: 1, stepped: true }),
  getstats: (label) => ({ label, color: GETSTATS_COLOR, width: 1, dash: [3, 3] }),
  'getstats-count': (label) => ({ label, color: GETSTATS_COLOR, width: 1.5, dash: [3, 3], axis: 'y2', stepped: true }),
};

/**
 * @typedef {{ remote: string, peer: string, entries: ReportEntry[], color: string, shaded: string,
 *   route: string[]|null }} ViewerStream  one received stream: the viewer `peer` watching `remote`
 */

/**
 * The panels of each stream, in page order; their lines are the catalogue metrics whose `viewerChart.panel` is the
 * panel's id. scoredOnly: the line joins the seconds that have a value (captured frames are scored in some
 * seconds only) instead of breaking between them; configured: the condition's step line after the measured ones.
 * @type {Array<{ id: string, title: (s: ViewerStream) => string, yLabel: string, y2Label?: string, scoredOnly?: boolean,
 *   configured?: (s: ViewerStream, charts: ViewerCharts) => SeriesSpec|null }>}
 */
export const VIEWER_PANELS = [
  {
    id: 'delay', title: (s) => `Glass-to-glass delay ${s.remote} → ${s.peer}${s.shaded}`, yLabel: 'ms',
    configured: (s, { histories, span }) => configuredSeries(s.route ? pathSteps(histories, s.route, 'oneWayDelayMs', span) : null, 'configured one-way delay'),
  },
  { id: 'frames', title: (s) => `Frames as seen ${s.remote} → ${s.peer}${s.shaded}`, yLabel: 'frames/s', y2Label: 'freezes/s' },
  {
    id: 'quality', title: (s) => `Picture quality ${s.remote} → ${s.peer} (captured frames vs source)${s.shaded}`,
    yLabel: 'PSNR (dB)', y2Label: 'SSIM', scoredOnly: true,
  },
];

/** The catalogue metrics drawn in a viewer panel, in their `viewerChart.order`. @param {string} panel @returns {ViewerMetric[]} */
function panelMetrics(panel) {
  /** @type {ViewerMetric[]} */
  const charted = [];
  for (const metric of METRICS) if (metric.viewerChart?.panel === panel) charted.push({ ...metric, viewerChart: metric.viewerChart });
  return charted.sort((a, b) => a.viewerChart.order - b.viewerChart.order);
}

/**
 * @typedef {{ histories: import('./network.js').LinkHistories, span: import('./chart-series.js').Span,
 *   colorOf: (peer: string) => string }} ViewerCharts  series.js's time axis, configured links and peer colours
 */

/**
 * @param {ReportResult} result normalized (result-file.js)
 * @param {ViewerCharts} charts
 * @returns {Section}
 */
export function buildViewerSection(result, charts) {
  const streams = [...new Set(result.timeline.filter((e) => Number.isFinite(metricAt(e, 'video.framesShown'))).map((e) => `${e.remote}\n${e.peer}`))].sort();
  /** @type {PanelSpec[]} */
  const panels = [];
  for (const key of streams) {
    const [remote, peer] = key.split('\n');
    /** @type {import('./result-file.js').ViewerFreeze[]} */
    const freezes = result.viewer?.freezes ?? [];
    const spans = freezes.filter((f) => f.peer === peer && f.remote === remote)
      .map((f) => ({ fromS: roundTime(f.atS), toS: roundTime(f.atS + f.durationMs / 1000), color: FREEZE_SPAN_COLOR }));
    /** @type {ViewerStream} */
    const stream = {
      remote, peer, color: charts.colorOf(remote), route: routeLinks(result.network, remote, peer),
      entries: result.timeline.filter((e) => e.peer === peer && e.remote === remote).sort((a, b) => a.t - b.t),
      shaded: spans.length ? ' · shaded: freezes as seen' : '',
    };
    for (const panel of VIEWER_PANELS) {
      const lines = panelMetrics(panel.id).map(({ path, viewerChart }) => {
        const entries = panel.scoredOnly ? stream.entries.filter((e) => Number.isFinite(metricAt(e, path))) : stream.entries;
        return measured(entries, (e) => metricAt(e, path), VIEWER_LINE_STYLES[viewerChart.line](viewerChart.label, stream.color));
      });
      const configured = panel.configured?.(stream, charts) ?? null;
      panels.push({
        id: safeId(`viewer-${remote}-${peer}-${panel.id}`), title: panel.title(stream), yLabel: panel.yLabel,
        ...(panel.y2Label ? { y2Label: panel.y2Label } : {}), spans, series: configured ? [...lines, configured] : lines,
      });
    }
  }
  return {
    id: 'viewer', title: 'What the viewer saw',
    subtitle: 'frame codes read from every presented frame on both pages, on the shared clock',
    panels: drawnPanels(panels),
  };
}
