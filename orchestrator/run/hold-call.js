// The call itself, between set-up and tear-down: media start, the network schedule and the flows' page commands
// on the media clock, network truth and the viewers' frames once a second.
import { browserFlowTimeline } from '../lib/cross/flow-commands.js';
import { groupScheduleEvents } from '../lib/network/schedule.js';
import { allPeerNames } from '../lib/network/topology.js';
import { hold, sleep } from './call-lifecycle.js';
import { scheduleHandovers } from './handovers.js';
import { createViewerCollector } from './viewer-collector.js';
import { screenSources } from '../lib/media/screen-share.js';
import { createAudioCollector } from './audio-collector.js';
import { createLipSyncCollector } from './lip-sync-collector.js';
import { startLayerChoice } from './layer-controller.js';
import { errorMessage } from '../lib/system/errors.js';
import { createLastSampleWatch } from '../lib/result/last-samples.js';

/** @typedef {import('./call-state.js').Call} Call */
/** @typedef {import('./call-state.js').LiveCall} LiveCall */
/**
 * @typedef {import('../lib/network/schedule.js').CompiledNetwork['events'][number] & { traceStep?: boolean }} ScheduleChange  traceStep:
 *   one of a trace's rate steps (lib/network/trace.js steppedNetwork)
 */

// The longest the call waits after its last second for the pages' samples of it; it ends as soon as they are in.
const LAST_SAMPLE_GRACE_MS = 2500;
const LAST_SAMPLE_POLL_MS = 50;

/**
 * Media start, the network schedule, network truth once a second, until the duration is over or the run stops early.
 * @param {LiveCall} call
 */
export async function holdCall(call) {
  const { scenario, recorder, emulator, log } = call;
  if (recorder.signal.aborted) return;
  // What a browser forked while its tree was being moved.
  await call.cgroups?.sweep().catch((error) => recorder.fail(`limiting the devices' CPU: ${errorMessage(error)}`));
  const mediaStartEpochMs = Date.now();
  recorder.mediaStartEpochMs = mediaStartEpochMs;
  // The relay's traces run on the media clock, like the schedule.
  await emulator.startMedia?.(mediaStartEpochMs).catch((error) => recorder.fail(`starting the link traces: ${errorMessage(error)}`));
  recorder.event({ type: 'call-started', epochMs: mediaStartEpochMs });
  call.signaling.broadcast(call.room, { type: 'start', mediaStartEpochMs });
  log(`call started; running ${scenario.durationS} s`);
  startSchedules(call, mediaStartEpochMs);
  call.kernelFlows?.start(mediaStartEpochMs);
  // What the viewers saw: drained from the pages once a second; the last drain runs before the browsers close.
  const viewer = createViewerCollector({
    pages: call.pages, peers: [...allPeerNames(scenario), ...screenSources(scenario.screenShare ?? null)], runDir: call.runDir,
    changeTimesS: scenario.compiled.events.map((event) => event.atS), fps: call.media.fps, startedAtEpochMs: call.startedAt.getTime(),
    onRejected: (peer, reason) => recorder.rejected({ epochMs: Date.now(), peer, messageType: 'viewer-drain', reason }),
  });
  call.viewer = viewer;
  await viewer.start(mediaStartEpochMs);
  hold(call, 'viewer collector', () => viewer.stop());
  if (scenario.audioQuality) {
    const audio = createAudioCollector({
      pages: call.pages, peers: allPeerNames(scenario), runDir: call.runDir, durationS: scenario.durationS,
      startedAtEpochMs: call.startedAt.getTime(),
      onRejected: (peer, reason) => recorder.rejected({ epochMs: Date.now(), peer, messageType: 'audio-drain', reason }),
    });
    call.audio = audio;
    await audio.start();
    hold(call, 'audio collector', () => audio.stop());
  }
  if (scenario.lipSync) {
    const lipSync = createLipSyncCollector({
      pages: call.pages, peers: allPeerNames(scenario), durationS: scenario.durationS, startedAtEpochMs: call.startedAt.getTime(),
      onRejected: (peer, reason) => recorder.rejected({ epochMs: Date.now(), peer, messageType: 'lip-sync-drain', reason }),
    });
    call.lipSync = lipSync;
    lipSync.start();
    hold(call, 'lip-sync collector', () => lipSync.stop());
  }
  const truthTimer = setInterval(() => readTruth(call, emulator).catch((error) => recorder.fail(`reading network truth: ${errorMessage(error)}`)), 1000);
  hold(call, 'truth timer', () => clearInterval(truthTimer));
  const { sfuSampler } = call;
  if (sfuSampler) {
    sfuSampler.start();
    hold(call, 'SFU stats sampler', () => sfuSampler.stop());
  }
  // Simulcast and SVC layers, where the SFU leaves their choice to the clients.
  const layerChoice = startLayerChoice(call);
  if (layerChoice) hold(call, 'layer choice', async () => layerChoice.stop());
  const lastSamples = createLastSampleWatch(recorder.samples);
  const endEpochMs = mediaStartEpochMs + scenario.durationS * 1000;
  await sleep(endEpochMs - Date.now(), recorder.signal);
  const lastSecond = Math.floor(scenario.durationS);
  while (!recorder.signal.aborted && Date.now() < endEpochMs + LAST_SAMPLE_GRACE_MS && !lastSamples.complete(lastSecond)) {
    await sleep(LAST_SAMPLE_POLL_MS, recorder.signal);
  }
  call.signaling.broadcast(call.room, { type: 'stop' });
}

/**
 * The network schedule's timers and the flows' page commands' (lib/cross/flow-commands.js), held for tear-down.
 * @param {LiveCall} call @param {number} mediaStartEpochMs
 */
function startSchedules(call, mediaStartEpochMs) {
  const { scenario, recorder, emulator } = call;
  // One change at a time: a slow one (tc) must not let the next overtake it. A trace's rate steps are counted, not listed.
  let applying = Promise.resolve();
  const timers = scheduleNetwork(emulator.events ?? scenario.compiled.events, mediaStartEpochMs, (atS, changes) => {
    applying = applying.then(async () => {
      if (recorder.signal.aborted) return;
      try {
        await emulator.apply(Object.fromEntries(changes.map((change) => [change.link, change.params])), atS);
        // Media started above, so the recorder's clock runs.
        const appliedAtS = recorder.atS() ?? atS;
        for (const { link, params, cause, traceStep } of changes) {
          if (traceStep) call.traceStepLateMs.push((appliedAtS - atS) * 1000);
          else recorder.scheduleEvents.push({ atS, appliedAtS, link, params, cause });
        }
      } catch (error) {
        recorder.fail(`applying the schedule at ${atS} s: ${errorMessage(error)}`);
      }
    });
  });
  hold(call, 'schedule timers', () => timers.forEach(clearTimeout));
  const handoverTimers = scheduleHandovers(call, mediaStartEpochMs);
  hold(call, 'handover timers', () => handoverTimers.forEach(clearTimeout));
  const flowTimers = scheduleFlows(browserFlowTimeline(scenario), mediaStartEpochMs, (atS, peer, command) => {
    const { type, ...fields } = command;
    recorder.event({ type: 'flow-command', peer, command: type, ...fields, scheduledAtS: atS });
    try {
      if (!call.signaling.sendCommand(call.room, peer, command)) recorder.fail(`flow command ${type} at ${atS} s not delivered: the page has left signaling`, peer);
    } catch (error) {
      // A timer's exception would take the orchestrator down without a result.
      recorder.fail(`flow command ${type} at ${atS} s: ${errorMessage(error)}`, peer);
    }
  });
  hold(call, 'flow timers', () => flowTimers.forEach(clearTimeout));
}

/**
 * The emulator's truth per link, its own load when it measures itself, and with kernel flows the relay's per tunnel
 * (what crossed the bottleneck of each).
 * @param {Call} call @param {import('../emulators/contract.js').Emulator} emulator
 */
export async function readTruth(call, emulator) {
  call.recorder.truth.push(...await emulator.truth());
  if (emulator.load) call.recorder.emulatorLoad.push(...await emulator.load());
  if (call.kernelFlows && emulator.tunnels) call.flowTruth.push(...await emulator.tunnels.truth());
}

/**
 * Arms one timer per distinct time of the flows' page commands (lib/cross/flow-commands.js), which sends that time's
 * commands in their order; anchored to media start like the network schedule.
 * @param {import('../lib/cross/flow-commands.js').TimedCommand[]} timeline  sorted by atS
 * @param {number} mediaStartEpochMs
 * @param {(atS: number, peer: string, command: import('../../signaling/messages.js').Command) => void} send
 */
function scheduleFlows(timeline, mediaStartEpochMs, send) {
  const times = [...new Set(timeline.map(({ atS }) => atS))];
  return times.map((atS) => setTimeout(() => {
    for (const { peer, command } of timeline.filter((entry) => entry.atS === atS)) send(atS, peer, command);
  }, mediaStartEpochMs + atS * 1000 - Date.now()));
}

/**
 * Arms one timer per distinct time in the schedule; the emulator applies each group of changes at once.
 * Times are anchored to media start so a late timer does not delay the later ones.
 * @param {readonly ScheduleChange[]} events  all atS > 0 (compileNetwork; lib/network/trace-steps.js steppedNetwork)
 * @param {number} mediaStartEpochMs
 * @param {(atS: number, changes: ScheduleChange[]) => void} apply
 */
function scheduleNetwork(events, mediaStartEpochMs, apply) {
  return groupScheduleEvents(events)
    .map(({ atS, events: changes }) => setTimeout(() => apply(atS, changes), mediaStartEpochMs + atS * 1000 - Date.now()));
}
