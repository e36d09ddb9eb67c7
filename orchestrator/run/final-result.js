// The run's result.json from what the call collected, once every browser has closed: the viewers' frames scored,
// the environment described, buildResult (lib/result/result.js). Nothing the pages sent may keep a result from being
// written, so a builder that throws gives a result that says so (unbuiltResult) instead of none.
import { codecSummary } from '../lib/media/codec.js';
import { buildResult, unbuiltResult } from '../lib/result/result.js';
import { percentile } from '../lib/stats/statistics.js';
import { scenarioPeers } from '../lib/network/topology.js';
import { describeEnvironment } from './environment.js';
import { gridObservations } from './grid-observer.js';
import { scoreCaptures, vmafAvailability } from './picture-quality.js';
import { scoreAudio, visqolAvailability } from './audio-quality.js';
import { lipSyncSection } from '../lib/audio/lip-sync.js';
import { turnLoadSection } from '../lib/devices/turn-load.js';
import { errorMessage, errorStack } from '../lib/system/errors.js';

/**
 * Never rejects.
 * @param {import('./call-state.js').Call} call
 * @returns {Promise<import('../lib/result/result.js').RunResult>}
 */
export async function finalResult(call) {
  const { recorder, scenario, startedAt } = call;
  try {
    const viewer = await scoreViewer(call);
    const audio = await scoreAudioQuality(call);
    recorder.finish();
    return buildResult({ ...resultInput(call, viewer), audio, lipSync: lipSyncOf(call) });
  } catch (error) {
    call.log(`error: building result.json failed: ${errorStack(error)}`);
    return unbuiltResult({
      status: recorder.status, errors: recorder.errors, scenario, error, emulator: call.emulator?.name ?? call.emulatorName,
      commands: [...(call.emulator?.commands ?? []), ...call.commands], startedAt, endedAt: new Date(),
    });
  }
}

/**
 * buildResult's input.
 * @param {import('./call-state.js').Call} call @param {Awaited<ReturnType<typeof scoreViewer>>} viewer
 * @returns {Parameters<typeof buildResult>[0]}
 */
function resultInput(call, viewer) {
  const { recorder, scenario, kinds, executables, startedAt, processes } = call;
  const grid = call.grid && gridObservations(call.grid.record, call.gridObserver);
  return {
    status: recorder.status,
    errors: recorder.errors,
    scenario,
    environment: describeEnvironment({
      browsers: Object.fromEntries(Object.entries(kinds)
        .map(([peer, kind]) => [peer, {
          kind, ...executables[kind], version: recorder.browserVersions[peer], reused: recorder.browserReused[peer] ?? null,
        }])),
      samples: recorder.samples, emulator: call.emulator, emulatorName: call.emulatorName, media: call.media, startedAt,
      endedAt: new Date(),
      codecs: codecSummary(recorder.events, scenario.codec), cgroups: call.cgroups?.record ?? null, grid: grid?.record ?? null,
      mediaSource: scenario.mediaSource ?? 'browser', fieldTrials: scenario.fieldTrials ?? null,
      sfu: scenario.topology === 'sfu' ? { name: call.sfu?.name ?? call.sfuName, version: call.sfu?.version ?? null } : null,
    }),
    samples: recorder.samples,
    events: recorder.events,
    network: {
      emulator: call.emulator?.name ?? call.emulatorName,
      truth: recorder.truth,
      emulatorLoad: call.emulator?.load ? recorder.emulatorLoad : null,
      commands: [...(call.emulator?.commands ?? []), ...call.commands],
      scheduleEvents: recorder.scheduleEvents,
      traceSteps: call.emulator?.traceSteps ? { ...call.emulator.traceSteps, appliedLateMs: lateness(call.traceStepLateMs) } : null,
    },
    clock: { startedAtEpochMs: startedAt.getTime(), mediaStartEpochMs: recorder.mediaStartEpochMs },
    peers: scenarioPeers(scenario),
    processes: {
      rows: processes.rows, unavailable: processes.unavailable,
      turn: call.turn && turnLoadSection(call.turn.load, recorder.mediaStartEpochMs, scenario),
    },
    sfu: call.sfuSampler && { rows: call.sfuSampler.rows, unavailable: call.sfuSampler.unavailable },
    load: scenario.load && call.load ? {
      request: scenario.load, readings: call.load.readings, commands: call.load.commands,
      links: call.loadLinks ?? { shaped: false, why: null },
    } : undefined,
    flowRows: call.kernelFlows?.rows() ?? [],
    flowTruth: call.flowTruth,
    // Frame times taken on several nodes' clocks compare only on one clock: the orchestrator's.
    viewer: viewer && grid ? { ...viewer, batches: grid.onOrchestratorClock(viewer.batches) } : viewer,
    gridBrowsers: grid?.browsers,
  };
}

/**
 * How late the trace's rate steps took effect: part of the steps' error on top of the resampling.
 * @param {number[]} lateMs @returns {{ n: number, p50: number|null, p99: number|null, max: number|null }}
 */
function lateness(lateMs) {
  const sorted = [...lateMs].sort((a, b) => a - b);
  /** @param {number|null|undefined} value */
  const round = (value) => (value === null || value === undefined ? null : Math.round(value));
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)) };
}

/**
 * The frames the viewers saw and the picture quality of the captured ones (after the browsers closed, so ffmpeg has
 * the cores); the captures are removed once scored. A scoring failure is a warning: the rest of the result stands.
 * @param {import('./call-state.js').Call} call
 * @returns {Promise<Parameters<typeof buildResult>[0]['viewer']>}
 */
async function scoreViewer(call) {
  if (!call.viewer) return undefined;
  const vmaf = await vmafAvailability();
  /** @type {Awaited<ReturnType<typeof scoreCaptures>>} */
  let quality = { scores: [], unmatched: 0, vmafFailure: null };
  try {
    quality = await scoreCaptures({ captures: call.viewer.captures, media: call.media.peers, workDir: call.runDir, vmaf });
  } catch (error) {
    call.recorder.event({ type: 'warning', source: 'picture-quality', message: `scoring the captured frames failed: ${errorMessage(error)}` });
  } finally {
    await call.viewer.removeCaptures();
  }
  return {
    batches: call.viewer.batches, scores: quality.scores, captures: call.viewer.captures.length,
    unmatchedCaptures: quality.unmatched, droppedCaptures: call.viewer.droppedCaptures,
    vmaf: quality.vmafFailure ? { ...vmaf, available: false, reason: quality.vmafFailure } : vmaf,
  };
}

/**
 * Each page's tone onsets paired with the frames it showed, both on that page's clock (a Grid node's clock offset cancels).
 * @param {import('./call-state.js').Call} call
 * @returns {import('../lib/audio/lip-sync.js').LipSyncResult|null}
 */
function lipSyncOf(call) {
  const { lipSync, scenario, recorder } = call;
  if (!lipSync || !scenario.lipSync || recorder.mediaStartEpochMs === null) return null;
  return lipSyncSection({
    onsets: lipSync.onsets, batches: call.viewer?.batches ?? [], media: call.media.peers, mediaStartEpochMs: recorder.mediaStartEpochMs,
    warmupS: scenario.warmupS, durationS: scenario.durationS, audioDelayMs: scenario.lipSync.audioDelayMs, droppedOnsets: lipSync.dropped(),
  });
}

/**
 * What each page played out, scored by ViSQOL over the measurement window (after the browsers closed, like the
 * frames); the recordings are removed once scored. A scoring failure is a warning: the rest of the result stands.
 * @param {import('./call-state.js').Call} call
 * @returns {Promise<import('./audio-quality.js').AudioQuality|null>}
 */
async function scoreAudioQuality(call) {
  const { audio, scenario, recorder } = call;
  if (!audio || !scenario.audioQuality) return null;
  /** @param {string} message */
  const warn = (message) => recorder.event({ type: 'warning', source: 'audio-quality', message });
  try {
    if (recorder.mediaStartEpochMs === null) return null;
    const scorer = await visqolAvailability();
    if (!scorer.available) warn(scorer.reason);
    const quality = await scoreAudio({
      recordings: audio.recordings.values(), media: call.media.peers, mode: scenario.audioQuality,
      mediaStartEpochMs: recorder.mediaStartEpochMs, fromS: scenario.warmupS, toS: scenario.durationS, workDir: audio.dir, scorer,
      logCommand: (record) => call.commands.push(record), clockS: () => (Date.now() - call.startedAt.getTime()) / 1000,
    });
    if (quality.failure) warn(quality.failure);
    return quality;
  } catch (error) {
    warn(`scoring the played-out audio failed: ${errorMessage(error)}`);
    return null;
  } finally {
    await audio.remove();
  }
}
