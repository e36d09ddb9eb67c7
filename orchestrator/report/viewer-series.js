// The report's "What the viewer saw" charts (pure): per received stream, glass-to-glass delay against the configured
// one-way delay, the frames as seen against the decoder's, and the captured frames' PSNR/SSIM, with the freezes the
// viewer saw shaded on each.
import { metricAt } from './timeline.js';
import { pathSteps, routeLinks } from './network.js';
import { round2 } from './format.js';

const FREEZE_SPAN_COLOR = 'rgba(213, 94, 0, 0.18)';
const GETSTATS_COLOR = '#7f7f7f';

/**
 * @param {object} result normalized (result-file.js)
 * @param {{ measured: Function, configuredSeries: Function, tint: (hex: string, amount: number) => string,
 *   histories: import('./network.js').LinkHistories, span: { startS: number, endS: number }, colorOf: (peer: string) => string }} tools
 *   series.js's helpers, so the panels draw like every other
 * @returns {import('./series.js').Section}
 */
export function buildViewerSection(result, { measured, configuredSeries, tint, histories, span, colorOf }) {
  const streams = [...new Set(result.timeline.filter((e) => Number.isFinite(metricAt(e, 'video.framesShown'))).map((e) => `${e.remote}\n${e.peer}`))].sort();
  /** @type {import('./series.js').PanelSpec[]} */
  const panels = [];
  for (const stream of streams) {
    const [remote, peer] = stream.split('\n');
    const entries = result.timeline.filter((e) => e.peer === peer && e.remote === remote).sort((a, b) => a.t - b.t);
    const color = colorOf(remote);
    const spans = (result.viewer?.freezes ?? []).filter((f) => f.peer === peer && f.remote === remote)
      .map((f) => ({ fromS: round2(f.atS), toS: round2(f.atS + f.durationMs / 1000), color: FREEZE_SPAN_COLOR }));
    const route = routeLinks(result.network, remote, peer);
    const id = (name) => `viewer-${remote}-${peer}-${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
    const shaded = spans.length ? ' · shaded: freezes as seen' : '';
    panels.push(
      {
        id: id('delay'), title: `Glass-to-glass delay ${remote} → ${peer}${shaded}`, yLabel: 'ms', spans,
        series: [
          measured(entries, (e) => metricAt(e, 'video.glassToGlassMs'), { label: 'glass-to-glass (median)', color, width: 2 }),
          measured(entries, (e) => metricAt(e, 'video.glassToGlassP95Ms'), { label: 'p95', color: tint(color, 0.4), width: 1, dash: [4, 2] }),
          measured(entries, (e) => metricAt(e, 'video.glassToGlassMaxMs'), { label: 'max', color: tint(color, 0.6), width: 1, dash: [1, 2] }),
          measured(entries, (e) => metricAt(e, 'video.jitterBufferDelayMs'), { label: 'jitter-buffer delay (getStats)', color: GETSTATS_COLOR, width: 1, dash: [3, 3] }),
          configuredSeries(route ? pathSteps(histories, route, 'oneWayDelayMs', span) : null, 'configured one-way delay'),
        ].filter(Boolean),
      },
      {
        id: id('frames'), title: `Frames as seen ${remote} → ${peer}${shaded}`, yLabel: 'frames/s', y2Label: 'freezes/s', spans,
        series: [
          measured(entries, (e) => metricAt(e, 'video.shownFps'), { label: 'frame rate as seen', color, width: 2 }),
          measured(entries, (e) => metricAt(e, 'video.recvFps'), { label: 'decoded (getStats)', color: GETSTATS_COLOR, width: 1, dash: [3, 3] }),
          measured(entries, (e) => metricAt(e, 'video.framesSkipped'), { label: 'source frames never shown', color: tint(color, 0.5), width: 1, stepped: true }),
          measured(entries, (e) => metricAt(e, 'video.viewerFreezes'), { label: 'freezes as seen', color, width: 1.5, axis: 'y2', stepped: true }),
          measured(entries, (e) => metricAt(e, 'video.freezeCount'), {
            label: 'freezes (getStats)', color: GETSTATS_COLOR, width: 1.5, dash: [3, 3], axis: 'y2', stepped: true,
          }),
        ],
      },
      {
        id: id('quality'), title: `Picture quality ${remote} → ${peer} (captured frames vs source)${shaded}`, yLabel: 'PSNR (dB)', y2Label: 'SSIM', spans,
        series: [
          measured(entries.filter((e) => Number.isFinite(metricAt(e, 'video.psnrDb'))), (e) => metricAt(e, 'video.psnrDb'), {
            label: 'PSNR (luma)', color, width: 2,
          }),
          measured(entries.filter((e) => Number.isFinite(metricAt(e, 'video.ssim'))), (e) => metricAt(e, 'video.ssim'), {
            label: 'SSIM (luma)', color: tint(color, 0.45), width: 1.5, dash: [4, 2], axis: 'y2',
          }),
        ],
      },
    );
  }
  return {
    id: 'viewer', title: 'What the viewer saw',
    subtitle: 'frame codes read from every presented frame on both pages, on the shared clock',
    panels: panels.map((p) => ({ ...p, series: p.series.filter((s) => s.y.some((v) => v !== null)) }))
      .filter((p) => p.series.some((s) => !s.configured)),
  };
}
