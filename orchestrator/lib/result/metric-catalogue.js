// The metric catalogue (pure): every metric the summary, the reports, the CLI and the suites know, once.
// Adding a metric is one entry here; test/unit/metric-catalogue.test.js fails when a timeline field is missing.
import { fieldOf as field, isRecord } from '../input/validate.js';

/**
 * How prominently a metric is shown. Each level includes the ones before it, so the lists nest:
 * - overview: a column of the suite's Markdown overview and of its run lists;
 * - compared: also compared with the baseline by default (a suite's regression.metrics);
 * - table: also a row of the run summary tables (CLI summary, report, compare);
 * - detail: also a row of the report's summary table when the run has data for it.
 * @typedef {'overview'|'compared'|'table'|'detail'} HeadlineLevel
 */

/**
 * One metric as written in the lists below.
 * @typedef {object} MetricEntry
 * @property {string} path               dotted timeline path ('video.recvKbps', 'rttMs') or a per-run name ('setupMs')
 * @property {string} label
 * @property {string} unit               of the shown value (the value × scale)
 * @property {number|null} decimals      shown with this many decimals; null: by magnitude (2456, 69.0, 1.13)
 * @property {'lower'|'higher'} worseWhen
 * @property {HeadlineLevel} [headline]  omitted: listed wherever every metric is, never picked out
 * @property {number} [row]              headline metrics: position in the run summary tables (J16 table 8-1 first)
 * @property {number} [scale]            shown as value × scale (a fraction in %)
 * @property {(summary: Record<string, unknown>) => unknown} [fromSummary]  per-run metrics: the run's value in result.summary
 *   of any harness version, read field by field as that version wrote it
 * @property {string} [optIn]            measured only in runs that ask for it (the flag named): a summary table shows it
 *                                       when the run has it, and a baseline comparison where neither side has a value
 *                                       leaves it out, so runs without it neither fail nor regress the gate
 * @property {'sender'} [side]           per-second fields a peer fills only while it sends media (lib/scenario/peer-browsers.js);
 *                                       the others need media coming in
 * @property {{ row: number, title: string }} [compare]  a per-peer chart of the compare page (report/render-compare.js)
 * @property {number} [codecTable]       a row of the codec table (report/codec-table.js); width and height share one
 * @property {{ panel: string, order: number, line: string }} [chart]  a line per remote in a panel of the report's
 *                                       peer section (report/peer-series.js PEER_PANELS), in `order`, styled as its `line`
 * @property {{ panel: string, order: number, line: string, label: string }} [viewerChart]  a line per received stream in a
 *                                       panel of the report's "What the viewer saw" (report/viewer-series.js VIEWER_PANELS),
 *                                       in `order`, styled as its `line` (VIEWER_LINE_STYLES) and named `label`

/**
 * A catalogue entry: where its values come from is the list it is written in.
 * @typedef {MetricEntry & { per: 'second'|'run' }} Metric
 *   second: a numeric field of every timeline entry (client-app/stats.js intervalMetrics), with per-second values in
 *   summary.peers and summary.overall; run: one value per run, computed by lib/result/run-summary.js
 */

export const HEADLINE_LEVELS = /** @type {const} */ (['overview', 'compared', 'table', 'detail']);

// Grouped by where the value comes from: video, audio, the connection. Headline metrics are shown by `row`.
/** @type {MetricEntry[]} */
const PER_SECOND = [
  { path: 'video.sendKbps', label: 'Video send rate', unit: 'kbps', decimals: null, worseWhen: 'lower', headline: 'detail', row: 9, side: 'sender', chart: { panel: 'video-rate', order: 2, line: 'send' } },
  { path: 'video.recvKbps', label: 'Video rate', unit: 'kbps', decimals: null, worseWhen: 'lower', headline: 'overview', row: 2, compare: { row: 1, title: 'Video receive rate (sum over remotes)' }, codecTable: 1, chart: { panel: 'video-rate', order: 1, line: 'receive' } },
  { path: 'video.sentWidth', label: 'Sent width', unit: 'px', decimals: 0, worseWhen: 'lower', side: 'sender' },
  { path: 'video.sentHeight', label: 'Sent height', unit: 'px', decimals: 0, worseWhen: 'lower', side: 'sender' },
  { path: 'video.sentFps', label: 'Sent frame rate', unit: 'fps', decimals: 1, worseWhen: 'lower', headline: 'detail', row: 10, side: 'sender' },
  { path: 'video.recvWidth', label: 'Received width', unit: 'px', decimals: 0, worseWhen: 'lower', headline: 'table', row: 5, codecTable: 5 },
  { path: 'video.recvHeight', label: 'Received height', unit: 'px', decimals: 0, worseWhen: 'lower', headline: 'table', row: 6, compare: { row: 6, title: 'Received height' }, codecTable: 5, chart: { panel: 'frames', order: 2, line: 'height' } },
  { path: 'video.recvFps', label: 'Received frame rate', unit: 'fps', decimals: 1, worseWhen: 'lower', headline: 'compared', row: 7, compare: { row: 5, title: 'Received frame rate' }, codecTable: 3, chart: { panel: 'frames', order: 1, line: 'fps' }, viewerChart: { panel: 'frames', order: 2, line: 'getstats', label: 'decoded (getStats)' } },
  { path: 'video.nackCount', label: 'NACKs', unit: 'per s', decimals: 1, worseWhen: 'higher' },
  { path: 'video.pliCount', label: 'PLIs', unit: 'per s', decimals: 2, worseWhen: 'higher' },
  { path: 'video.freezeCount', label: 'Freezes', unit: 'per s', decimals: 2, worseWhen: 'higher', headline: 'detail', row: 14, codecTable: 6, viewerChart: { panel: 'frames', order: 5, line: 'getstats-count', label: 'freezes (getStats)' } },
  // Encode time per frame against the frame interval is what WebRTC's CPU adaptation watches (qualityLimitationReason).
  { path: 'video.encodeMsPerFrame', label: 'Encode time per frame', unit: 'ms', decimals: 1, worseWhen: 'higher', side: 'sender' },
  // The camera track's frame rate (media-source): a sent rate far below it is frames the sender dropped (lib/devices/cpu-limit.js).
  { path: 'video.capturedFps', label: 'Captured frame rate', unit: 'fps', decimals: 1, worseWhen: 'lower', side: 'sender' },
  { path: 'video.packetSendDelayMs', label: 'Sender pacing delay', unit: 'ms', decimals: 1, worseWhen: 'higher', side: 'sender' },
  { path: 'video.freezeDurationMs', label: 'Frozen time (getStats)', unit: 'ms per s', decimals: 0, worseWhen: 'higher' },
  // What the viewer saw (lib/viewer/viewer.js): frame codes read from the presented frames on both pages, on the shared clock.
  // Glass-to-glass: from the sender's camera delivering a source frame to the receiver's display of it, per second.
  { path: 'video.glassToGlassMs', label: 'Glass-to-glass delay (median)', unit: 'ms', decimals: 0, worseWhen: 'higher', headline: 'detail', row: 15, viewerChart: { panel: 'delay', order: 1, line: 'seen', label: 'glass-to-glass (median)' } },
  // The mean, to set against getStats' per-interval means (jitterBufferDelayMs): in a second where the receiver's
  // playout delay jumps, its median and the buffer's mean describe different frames.
  { path: 'video.glassToGlassMeanMs', label: 'Glass-to-glass delay (mean of the second)', unit: 'ms', decimals: 0, worseWhen: 'higher' },
  { path: 'video.glassToGlassP95Ms', label: 'Glass-to-glass delay (p95 of the second)', unit: 'ms', decimals: 0, worseWhen: 'higher', viewerChart: { panel: 'delay', order: 2, line: 'seen-p95', label: 'p95' } },
  { path: 'video.glassToGlassMaxMs', label: 'Glass-to-glass delay (max of the second)', unit: 'ms', decimals: 0, worseWhen: 'higher', viewerChart: { panel: 'delay', order: 3, line: 'seen-max', label: 'max' } },
  { path: 'video.framesShown', label: 'Frames presented', unit: 'per s', decimals: 1, worseWhen: 'lower' },
  { path: 'video.framesSkipped', label: 'Source frames never shown', unit: 'per s', decimals: 1, worseWhen: 'higher', viewerChart: { panel: 'frames', order: 3, line: 'skipped', label: 'source frames never shown' } },
  { path: 'video.shownFps', label: 'Frame rate as seen', unit: 'fps', decimals: 1, worseWhen: 'lower', headline: 'detail', row: 16, viewerChart: { panel: 'frames', order: 1, line: 'seen', label: 'frame rate as seen' } },
  { path: 'video.viewerFreezes', label: 'Freezes as seen', unit: 'per s', decimals: 2, worseWhen: 'higher', headline: 'detail', row: 17, viewerChart: { panel: 'frames', order: 4, line: 'seen-count', label: 'freezes as seen' } },
  { path: 'video.viewerFreezeMs', label: 'Frozen time as seen', unit: 'ms per s', decimals: 0, worseWhen: 'higher' },
  // Captured received frames against their source frames (run/picture-quality.js), luma, code strip excluded.
  { path: 'video.psnrDb', label: 'PSNR (luma)', unit: 'dB', decimals: 2, worseWhen: 'lower', headline: 'detail', row: 18, viewerChart: { panel: 'quality', order: 1, line: 'seen', label: 'PSNR (luma)' } },
  { path: 'video.ssim', label: 'SSIM (luma)', unit: '', decimals: 4, worseWhen: 'lower', headline: 'detail', row: 19, viewerChart: { panel: 'quality', order: 2, line: 'seen-second', label: 'SSIM (luma)' } },
  // VMAF (libvmaf vmaf_v0.6.1, 0-100) where imageio-ffmpeg's ffmpeg is set up; its motion feature sees the captures as one clip.
  { path: 'video.vmaf', label: 'VMAF (luma)', unit: '', decimals: 2, worseWhen: 'lower', headline: 'detail', row: 20 },
  { path: 'video.lossPct', label: 'Video packet loss', unit: '%', decimals: 2, worseWhen: 'higher', headline: 'detail', row: 13, chart: { panel: 'loss-recovery', order: 3, line: 'before-retransmission' } },
  // Recovery (client-app/stats.js, lib/result/loss.js): lost packets no retransmission filled, the flow's wire loss minus that,
  // and what carried the repairs. video.lossPct counts repaired packets as lost (Chromium's RTCP-level loss).
  { path: 'video.residualLossPct', label: 'Video loss after recovery', unit: '%', decimals: 2, worseWhen: 'higher', headline: 'detail', row: 24, chart: { panel: 'loss-recovery', order: 2, line: 'after-recovery' } },
  { path: 'video.recoveredLossPct', label: 'Video loss recovered', unit: '%', decimals: 2, worseWhen: 'lower', chart: { panel: 'loss-recovery', order: 5, line: 'recovered' } },
  { path: 'video.retransmittedPacketsReceived', label: 'Video retransmissions received', unit: 'per s', decimals: 1, worseWhen: 'higher', chart: { panel: 'loss-recovery', order: 6, line: 'retransmissions' } },
  { path: 'video.fecPacketsReceived', label: 'Video FEC packets received', unit: 'per s', decimals: 1, worseWhen: 'higher' },
  // The RTX payload within the video rates (webrtc-stats counts it in bytesSent / bytesReceived). The receiver's also
  // counts the padding Chromium re-sends on the RTX stream to fill up to its estimate, which the sender counts as
  // padding: loss-5's video rate above the open link's (docs/reproductions.md).
  { path: 'video.retransmittedKbps', label: 'Video retransmission rate received', unit: 'kbps', decimals: null, worseWhen: 'higher' },
  { path: 'video.retransmittedSentKbps', label: 'Video retransmission rate sent', unit: 'kbps', decimals: null, worseWhen: 'higher', side: 'sender' },
  { path: 'video.jitterMs', label: 'Video jitter', unit: 'ms', decimals: null, worseWhen: 'higher', headline: 'detail', row: 25, chart: { panel: 'jitter', order: 2, line: 'video' } },
  { path: 'video.jitterBufferDelayMs', label: 'Video jitter-buffer delay', unit: 'ms', decimals: null, worseWhen: 'higher', headline: 'detail', row: 26, chart: { panel: 'jitter-buffer', order: 2, line: 'video' }, viewerChart: { panel: 'delay', order: 4, line: 'getstats', label: 'jitter-buffer delay (getStats)' } },
  // qpSum over framesDecoded per interval: on the codec's own scale (VP8 0-127, VP9 and AV1 0-255, H.264 0-51), so
  // compare it between runs of one codec, not across codecs.
  { path: 'video.qpPerFrame', label: 'Received QP per frame (codec\'s scale)', unit: 'QP', decimals: 1, worseWhen: 'higher', headline: 'detail', row: 27, codecTable: 7 },
  { path: 'audio.sendKbps', label: 'Audio send rate', unit: 'kbps', decimals: null, worseWhen: 'lower', headline: 'detail', row: 8, side: 'sender', chart: { panel: 'audio-rate', order: 2, line: 'send' } },
  // A shared screen (lib/media/screen-share.js; runs with --screen-share only), its own m-line beside the camera's:
  // contentHint "detail" keeps the resolution and gives up frame rate when bits are short; its legibility as PSNR/VMAF of
  // the slides (run/picture-quality.js), its frame rate as seen by the page's frame reader.
  { path: 'screen.sendKbps', label: 'Screen send rate', unit: 'kbps', decimals: null, worseWhen: 'lower', side: 'sender', optIn: '--screen-share' },
  { path: 'screen.recvKbps', label: 'Screen rate', unit: 'kbps', decimals: null, worseWhen: 'lower', optIn: '--screen-share' },
  { path: 'screen.sentHeight', label: 'Screen sent height', unit: 'px', decimals: 0, worseWhen: 'lower', side: 'sender', optIn: '--screen-share' },
  { path: 'screen.sentFps', label: 'Screen sent frame rate', unit: 'fps', decimals: 1, worseWhen: 'lower', side: 'sender', optIn: '--screen-share' },
  { path: 'screen.recvWidth', label: 'Screen received width', unit: 'px', decimals: 0, worseWhen: 'lower', optIn: '--screen-share' },
  { path: 'screen.recvHeight', label: 'Screen received height', unit: 'px', decimals: 0, worseWhen: 'lower', headline: 'detail', row: 37, optIn: '--screen-share', chart: { panel: 'screen', order: 2, line: 'screen-height' } },
  { path: 'screen.recvFps', label: 'Screen received frame rate', unit: 'fps', decimals: 1, worseWhen: 'lower', headline: 'detail', row: 38, optIn: '--screen-share', chart: { panel: 'screen', order: 1, line: 'fps' } },
  { path: 'screen.qpPerFrame', label: 'Screen QP per frame (codec\'s scale)', unit: 'QP', decimals: 1, worseWhen: 'higher', optIn: '--screen-share' },
  { path: 'screen.shownFps', label: 'Screen frame rate as seen', unit: 'fps', decimals: 1, worseWhen: 'lower', optIn: '--screen-share' },
  { path: 'screen.psnrDb', label: 'Screen PSNR (luma)', unit: 'dB', decimals: 2, worseWhen: 'lower', headline: 'detail', row: 39, optIn: '--screen-share' },
  { path: 'screen.ssim', label: 'Screen SSIM (luma)', unit: '', decimals: 4, worseWhen: 'lower', optIn: '--screen-share' },
  { path: 'screen.vmaf', label: 'Screen VMAF (luma)', unit: '', decimals: 2, worseWhen: 'lower', headline: 'detail', row: 40, optIn: '--screen-share' },
  { path: 'audio.recvKbps', label: 'Audio rate', unit: 'kbps', decimals: null, worseWhen: 'lower', headline: 'compared', row: 1, compare: { row: 2, title: 'Audio receive rate' }, chart: { panel: 'audio-rate', order: 1, line: 'receive' } },
  { path: 'audio.jitterMs', label: 'Audio jitter', unit: 'ms', decimals: null, worseWhen: 'higher', headline: 'detail', row: 11, chart: { panel: 'jitter', order: 1, line: 'audio' } },
  { path: 'audio.jitterBufferDelayMs', label: 'Audio jitter-buffer delay', unit: 'ms', decimals: null, worseWhen: 'higher', chart: { panel: 'jitter-buffer', order: 1, line: 'audio' } },
  { path: 'audio.lossPct', label: 'Audio packet loss', unit: '%', decimals: 2, worseWhen: 'higher', chart: { panel: 'loss-recovery', order: 4, line: 'after-recovery' } },
  { path: 'audio.recoveredLossPct', label: 'Audio loss recovered', unit: '%', decimals: 2, worseWhen: 'lower' },
  // Playout (client-app/stats.js): the share of the samples played that NetEq concealed (loss), or inserted and removed
  // to slow or speed playout (jitter-buffer stretching); and what the listener heard, scored by ViSQOL per window
  // (run/audio-quality.js; runs with --audio-quality only), each second carrying its window's score.
  { path: 'audio.concealedPct', label: 'Audio samples concealed', unit: '%', decimals: 2, worseWhen: 'higher', headline: 'detail', row: 35, chart: { panel: 'audio-playout', order: 1, line: 'concealed' } },
  { path: 'audio.insertedForDecelerationPct', label: 'Audio samples inserted (playout slowed)', unit: '%', decimals: 2, worseWhen: 'higher', chart: { panel: 'audio-playout', order: 2, line: 'inserted' } },
  { path: 'audio.removedForAccelerationPct', label: 'Audio samples removed (playout sped up)', unit: '%', decimals: 2, worseWhen: 'higher', chart: { panel: 'audio-playout', order: 3, line: 'removed' } },
  { path: 'audio.mosLqo', label: 'Audio MOS-LQO (ViSQOL)', unit: '', decimals: 2, worseWhen: 'lower', headline: 'compared', row: 34, optIn: '--audio-quality', chart: { panel: 'audio-playout', order: 4, line: 'mos' } },
  // The played-out level per interval, sqrt(ΔtotalAudioEnergy / ΔtotalSamplesDuration), 0-1 of full scale: what follows
  // the sender's talk spurts (lib/audio/talk.js). Worse when lower only for a talking sender; pauses are meant to be silent.
  { path: 'audio.recvLevel', label: 'Audio level received (RMS, 0-1)', unit: '', decimals: 4, worseWhen: 'lower' },
  // Lip sync (lib/audio/lip-sync.js; runs with --lip-sync only): a mark's audio onset minus its frame's display, on the
  // second the frame was shown; positive: the sound after the picture. Worse the later the audio (BT.1359 tolerates less early).
  { path: 'audio.lipSyncOffsetMs', label: 'Lip sync offset (audio − video)', unit: 'ms', decimals: 0, worseWhen: 'higher', headline: 'detail', row: 36, optIn: '--lip-sync' },
  // A bulk data-channel flow to or from the sample's remote (client-app/stats.js dataMetrics): the page's own byte counts.
  { path: 'data.sentKbps', label: 'Data channel send rate', unit: 'kbps', decimals: null, worseWhen: 'lower' },
  { path: 'data.recvKbps', label: 'Data channel receive rate', unit: 'kbps', decimals: null, worseWhen: 'lower' },
  { path: 'rttMs', label: 'RTT', unit: 'ms', decimals: null, worseWhen: 'higher', headline: 'overview', row: 3, side: 'sender', compare: { row: 3, title: 'Round-trip time' }, codecTable: 2, chart: { panel: 'rtt', order: 1, line: 'rtt' } },
  { path: 'lossPct', label: 'Packet loss', unit: '%', decimals: 2, worseWhen: 'higher', headline: 'overview', row: 4, compare: { row: 4, title: 'Packet loss (received)' }, codecTable: 4, chart: { panel: 'loss', order: 1, line: 'loss' } },
  // The emulator's drops on the received flow's route (lib/result/loss.js), beside what the receiver was left missing.
  { path: 'residualLossPct', label: 'Packet loss after recovery', unit: '%', decimals: 2, worseWhen: 'higher', headline: 'detail', row: 22 },
  { path: 'wireLossPct', label: 'Packet loss on the wire', unit: '%', decimals: 2, worseWhen: 'higher', headline: 'detail', row: 21, chart: { panel: 'loss-recovery', order: 1, line: 'wire' } },
  { path: 'recoveredLossPct', label: 'Packet loss recovered', unit: '%', decimals: 2, worseWhen: 'lower', headline: 'detail', row: 23 },
  {
    path: 'availableOutgoingKbps', label: 'Available outgoing bitrate', unit: 'kbps', decimals: null,
    worseWhen: 'lower', headline: 'detail', row: 12, side: 'sender', compare: { row: 7, title: 'Available outgoing bitrate' }, chart: { panel: 'available-outgoing', order: 1, line: 'estimate' },
  },
];

/** @type {MetricEntry[]} */
const PER_RUN = [
  {
    // The harness's CPU verdict (lib/devices/cpu-limit.js): the share of the most limited sender's seconds, whatever the browser said.
    path: 'cpuLimitedSharePct', label: 'CPU-limited sender seconds (harness, worst peer)', unit: '%', scale: 100, decimals: 0,
    worseWhen: 'higher', fromSummary: (summary) => {
      const peers = field(field(summary.cpuLimitation, 'harness'), 'peers');
      const shares = Object.values(isRecord(peers) ? peers : {}).map((peer) => field(peer, 'share')).filter((share) => share !== null);
      return shares.length ? Math.max(...shares.map(Number)) : undefined;
    },
  },
  {
    path: 'utilization', label: 'Utilisation', unit: '%', scale: 100, decimals: 1, worseWhen: 'lower',
    fromSummary: (summary) => field(summary.utilization, 'overall'),
  },
  {
    // The slowest peer: the call is set up when every peer shows video.
    path: 'setupMs', label: 'Set-up time', unit: 'ms', decimals: 0, worseWhen: 'higher',
    fromSummary: (summary) => field(summary.setupMs, 'max'),
  },
  {
    // J16 §8-4's definition (lib/cross/fairness.js): on each flow's mean rate per phase of constant active flows.
    path: 'jainIndex', label: "Jain's index (J16: per-flow mean rates per phase)", unit: '', decimals: 3, worseWhen: 'lower',
    fromSummary: (summary) => summary.jainIndex,
  },
  {
    path: 'jainIndexPerSecond', label: "Jain's index (mean of per-second values)", unit: '', decimals: 3, worseWhen: 'lower',
    fromSummary: (summary) => summary.jainIndexPerSecond,
  },
  {
    // Mean over the schedule changes after the call start (lib/stats/steady-rate.js).
    path: 'timeToSteadyS', label: 'Time to steady rate', unit: 's', decimals: 1, worseWhen: 'higher',
    fromSummary: (summary) => summary.timeToSteadyS,
  },
  {
    // Lip sync over every received stream's marks in the measurement window (lib/audio/lip-sync.js summarizeOffsets).
    path: 'lipSyncP95AbsMs', label: 'Lip sync offset, p95 of |audio − video|', unit: 'ms', decimals: 0, worseWhen: 'higher', optIn: '--lip-sync',
    fromSummary: (summary) => field(summary.lipSync, 'p95AbsMs'),
  },
  {
    path: 'lipSyncDriftMsPerMin', label: 'Lip sync drift (audio − video)', unit: 'ms/min', decimals: 1, worseWhen: 'higher', optIn: '--lip-sync',
    fromSummary: (summary) => field(summary.lipSync, 'driftMsPerMin'),
  },
  {
    // Speaking turns (lib/audio/talk.js; scenarios with `talk` only): the lowest correlation of a received stream's level per
    // second with its sender's talk spurts; the follows-spurts check wants MIN_TALK_CORRELATION (0.6) or more.
    path: 'talkCorrelation', label: 'Received level vs talk spurts, lowest correlation', unit: '', decimals: 2, worseWhen: 'lower', optIn: 'talk',
    fromSummary: (summary) => field(summary.talk, 'minCorrelation'),
  },
  {
    // Mean over the flows' joins and leaves on the bottleneck of the seconds until Jain's index holds >= 0.9 (lib/cross/fairness.js).
    path: 'convergenceS', label: 'Convergence time after a flow joins or leaves', unit: 's', decimals: 1, worseWhen: 'higher',
    fromSummary: (summary) => summary.convergenceS,
  },
  // Handovers (lib/result/handover.js; scenarios whose schedule moves a peer to a new network only).
  {
    // The longest over the handovers' streams, the last frame shown before → the first after; none when a stream never came back.
    path: 'handoverOutageMs', label: 'Handover outage, longest (as seen)', unit: 'ms', decimals: 0, worseWhen: 'higher', optIn: 'handover',
    fromSummary: (summary) => field(summary.handover, 'outageMs'),
  },
  {
    path: 'handoverNewPairShare', label: "Handover: moved peers' connections on a new candidate pair", unit: '%', scale: 100, decimals: 0,
    worseWhen: 'lower', optIn: 'handover', fromSummary: (summary) => field(summary.handover, 'newPairShare'),
  },
  {
    path: 'handoverTimeToSteadyS', label: 'Time to steady rate after a handover', unit: 's', decimals: 1, worseWhen: 'higher', optIn: 'handover',
    fromSummary: (summary) => field(summary.handover, 'timeToSteadyS'),
  },
];

/** @type {readonly Metric[]} */
export const METRICS = Object.freeze([
  ...PER_SECOND.map((entry) => Object.freeze({ ...entry, per: /** @type {const} */ ('second') })),
  ...PER_RUN.map((entry) => Object.freeze({ ...entry, per: /** @type {const} */ ('run') })),
]);

const BY_PATH = new Map(METRICS.map((metric) => [metric.path, metric]));

/** Every metric path, in catalogue order. */
export const METRIC_PATHS = METRICS.map((metric) => metric.path);
/** Numeric timeline paths: the metrics with per-second values. */
export const TIMELINE_METRIC_PATHS = METRICS.filter((metric) => metric.per === 'second').map((metric) => metric.path);
/** Metrics with one value per run. */
export const RUN_METRIC_PATHS = METRICS.filter((metric) => metric.per === 'run').map((metric) => metric.path);

/** @param {string} path @returns {Metric|undefined} */
export function metricByPath(path) {
  return BY_PATH.get(path);
}

/**
 * The metrics shown at a headline level or a more prominent one, by row.
 * @param {HeadlineLevel} level
 * @returns {string[]} paths
 */
export function headlinePaths(level) {
  const last = HEADLINE_LEVELS.indexOf(level);
  if (last < 0) throw new RangeError(`unknown headline level '${level}'; known: ${HEADLINE_LEVELS.join(', ')}`);
  return METRICS.filter(/** @returns {metric is Metric & { row: number }} */ (metric) => metric.headline !== undefined
    && metric.row !== undefined && HEADLINE_LEVELS.indexOf(metric.headline) <= last)
    .sort((a, b) => a.row - b.row)
    .map((metric) => metric.path);
}

/**
 * The metrics a list of the reports picks out, in its order: entries with `compare` or `codecTable`.
 * @param {'compare'|'codecTable'} list
 * @returns {Metric[]}
 */
export function metricsOfList(list) {
  const rowOf = (/** @type {Metric} */ metric) => (list === 'compare' ? metric.compare?.row : metric.codecTable);
  return METRICS.flatMap((metric) => {
    const row = rowOf(metric);
    return row === undefined ? [] : [{ metric, row }];
  }).sort((a, b) => a.row - b.row).map(({ metric }) => metric);
}
