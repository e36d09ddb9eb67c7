// The owner of result.json's shape (docs/results-schema.md): its version, its type, and the one pure function that assembles
// it from what a run collected. The writer (run/run.js) and the reader (report/result-file.js) both use this module.
import { flowList, pageFlowRows } from '../cross/flow-list.js';
import { lossSummary, withWireLoss } from './loss.js';
import { configuredTimeline } from '../network/schedule.js';
import { summarize } from './run-summary.js';
import { SETUP_MILESTONES, setupBreakdown } from './setup-breakdown.js';
import { describe } from '../stats/statistics.js';
import { emulatorBehind, hostSaturation } from '../devices/cpu-limit.js';
import { viewerSection, withViewer } from '../viewer/viewer.js';
import { withGetStatsFreezes } from '../viewer/viewer-summary.js';
import { glassToGlassClockError } from '../grid/clock-offset.js';
import { nodeOfPeers } from '../grid/grid.js';
import { nodeResources } from '../devices/node-resources.js';
import { layersSection } from './layers.js';
import { pathsSection } from './ice-paths.js';
import { handoverSection, handoverSummary } from './handover.js';
import { withMosPerSecond } from '../audio/audio-windows.js';
import { withLipSyncPerSecond } from '../audio/lip-sync.js';
import { talkSection } from '../audio/talk.js';
import { loadSection } from '../media/load-participants.js';

export const SCHEMA_VERSION = 1;

/**
 * @typedef {'passed'|'failed'|'aborted'} RunStatus
 * @typedef {{ atS: number|null, peer: string|null, message: string }} RunError
 * @typedef {{ atS: number|null, epochMs: number, type: string, peer?: string|null, [field: string]: unknown }} RunEvent
 * @typedef {Record<string, unknown>} MediaMetrics  one kind's getStats fields as the page reported them (client-app/stats.js):
 *   the browsers' getStats dictionaries, a third party's, differ by browser and version; each reader checks the value it takes
 * @typedef {{ t: number, peer: string, remote: string, intervalS?: number, video?: MediaMetrics, audio?: MediaMetrics,
 *   data?: MediaMetrics, [metric: string]: unknown }} TimelineEntry
 * @typedef {{ atS: number, cmd: string, ok: boolean, [field: string]: unknown }} SystemCommand
 * @typedef {{ atS: number, appliedAtS: number|null, link: string, params: object, cause: string }} ScheduleEvent
 * @typedef {import('../network/trace-steps.js').TraceStepReport & { appliedLateMs: { n: number, p50: number|null, p99: number|null,
 *   max: number|null } }} TraceSteps
 * @typedef {{ t: number, flow: string, rateKbps: number, source: string, [field: string]: unknown }} FlowRow
 *   t: the second on the media clock (the row covers (t − 1, t]); rateKbps: the goodput its receiver got;
 *   source: getStats | iperf3 | datachannel | relay
 * @typedef {{ t: number, peer: string, feed: string, role: string, kind: string, direction: 'fromPeer'|'toPeer',
 *   bitrateKbps: number, [metric: string]: unknown }} SfuRow  one media stream of one Janus handle (sfu/janus/admin-sampler.js)
 * @typedef {object} Environment
 * @property {string} harnessVersion
 * @property {string|null} [commit]  the harness checkout's commit (null outside a git checkout; absent before it was recorded)
 * @property {boolean|null} [treeDirty]  the checkout had uncommitted changes when the run was described (null: unknown)
 * @property {{ name: string|null, version: string|null, path: string|null, source: string|null }} browser  the run's in one line:
 *   each distinct value over the peers, ' + ' between them ('chromium + firefox-esr')
 * @property {Record<string, PeerBrowser>} browsers  every peer's browser
 * @property {string} emulator
 * @property {string|null} emulatorChoice  why `auto` chose the backend
 * @property {string} os
 * @property {number} cpus
 * @property {string|null} cpuModel
 * @property {string} node
 * @property {string} startedAt  ISO time @property {string} endedAt  ISO time
 * @property {MediaFiles & { peers: Record<string, MediaFiles> }} media  the run's (--video), and what each peer's browser
 *   was fed: the scenario's per-peer preset, else the run's
 * @property {'browser'|'rfc8867'} [mediaSource]  the video rates: the browser's own or RFC 8867 §4.3's (client-app/media-source.js)
 * @property {string|null} [fieldTrials]  Chromium field trials its peers ran with (--force-fieldtrials); null: none
 * @property {import('../media/codec.js').CodecSummary} [codecs]  the requested video codec and, per peer and remote, what each
 *   direction last used (mime type, payload type, fmtp line, encoder/decoder implementation, power efficiency)
 * @property {{ version: 1|2, peers: Record<string, { name: string, paths: string[], cpuQuotaCores: number|null, quotaUs: number|null,
 *   periodUs: number, cpuCount: number|null, cpus: string|null,
 *   cpuStat: { periods: number, throttledPeriods: number, throttledMs: number }|null }> }|null} [cgroups]  the cgroups
 *   limiting constrained devices' pages (lib/devices/cpu-cgroup.js): hierarchy version, and per peer the directories, CFS quota and
 *   period, cores, and (cpuStat) how many CFS periods hit the quota over the run
 * @property {{ name: string, version: string|null }} [sfu]  an SFU call's SFU (--sfu) and the version it reported
 * @property {GridRecord|null} [grid]  --grid: the Grid (its URL without credentials), how the network was emulated, and
 *   each peer's node (label, URI, cores) and browser version
 * @typedef {{ url: string, emulation: 'central relay'|'node relays', peers: Record<string, { node: string, uri: string,
 *   cores: number|null, browserVersion: string|null, sessionId: string }>,
 *   clocks?: Record<string, import('../grid/clock-offset.js').NodeClock>, paths?: import('../grid/grid.js').PathProbe[] }} GridRecord
 *   clocks: per node, its clock's offset to the orchestrator's at the call's start and end (lib/grid/clock-offset.js);
 *   paths: node to node through the node relays, probed before the call (--emulator node-relay)
 * @typedef {{ preset: string|null, video: string, audio: string, width: number, height: number, fps: number,
 *   frames?: number, frameCode?: boolean, source?: 'fake-device'|'media-element', capture?: string }} MediaFiles
 *   frames: the loop's length; frameCode: frames carry the frame code; source and capture: per peer, how its browser
 *   read the media (media/generate.js ensureRunMedia)
 * @typedef {{name: string, version: string|null, path: string, source: string, missingFields: string[], reused: boolean|null}} PeerBrowser
 *   missingFields: timeline fields its getStats() never filled while media flowed; reused: from its suite's pool (browser-pool.js)
 *
 * @typedef {object} RunResult  result.json
 * @property {number} schemaVersion
 * @property {RunStatus} status
 * @property {RunError[]} errors
 * @property {object} scenario      the resolved scenario without its compiled network
 * @property {Environment} environment
 * @property {TimelineEntry[]} timeline
 * @property {RunEvent[]} events
 * @property {{ emulator: string, links: object, routes: Record<string, string[]>, configured: object[],
 *   truth: object[], emulatorLoad: EmulatorLoadEntry[]|null, commands: SystemCommand[], scheduleEvents: ScheduleEvent[],
 *   traceSteps: TraceSteps|null }} network
 *   emulatorLoad: the emulator's own load per second (the relay's); null from one that does not measure itself
 *   traceSteps: a backend that sets rates (netem, dummynet) replayed the links' traces as rate steps, and how far
 *   they were from the traces; null on the relay (it replays every delivery opportunity) or without traces
 * @property {{ list: import('../cross/flows.js').FlowListEntry[], rows: FlowRow[],
 *   truth: Array<{ t: number|null, bytesOut: number, rateKbps: number, [field: string]: unknown }> }} flows  the scenario's
 *   flows and the main call (lib/cross/flow-list.js flowList) and their rates per second; empty when the scenario has no
 *   flows; truth: the relay's per-tunnel count of each kernel flow per second
 * @property {import('./setup-breakdown.js').SetupBreakdown} setup  per peer: launch -> first decoded frame, step by step
 * @property {{ unavailable: string|null, rows: Array<{ t: number, process: string, cpuPct: number, rssMb: number, processCount: number }>,
 *   summary: Record<string, { cpuPct: object, peakRssMb: number }>, hostSaturation: ReturnType<typeof hostSaturation>,
 *   grid?: ReturnType<typeof nodeResources>, turn?: import('../devices/turn-load.js').TurnLoadSection }} resources
 *   per-process CPU and memory; on a Grid run each node's browsers and saturation; with a TURN server, coturn's load
 * @property {{ rows: SfuRow[], unavailable: string|null }|null} sfu  Janus's own view of each leg once a second; null without an SFU
 * @property {ReturnType<typeof loadSection>|null} [load]  an SFU room's load participants: per participant and second (unshaped)
 * @property {ReturnType<typeof layersSection>} [layers]  simulcast/SVC publishers' layers, received layers, switches and
 *   checks (lib/result/layers.js); null without layered publishers
 * @property {import('./ice-paths.js').PathsSection} [paths]  each connection's selected candidate pairs, the peers' network
 *   profiles, and the turnPath or networkPath checks (lib/result/ice-paths.js)
 * @property {import('./handover.js').HandoverResult[]|null} [handovers]  each handover's outage, pairs, restarts (lib/result/handover.js)
 * @property {ViewerResult|null} viewer  what the viewers saw (lib/viewer/viewer.js): freezes, captured frames' scores, the cost
 *   of reading the frame codes; null when the run did not collect it
 * @property {import('../audio/audio-windows.js').AudioQuality|null} [audio]  what each page played out, scored by ViSQOL per
 *   window (run/audio-quality.js); null when the run did not record it (scenario.audioQuality)
 * @property {import('../audio/lip-sync.js').LipSyncResult|null} [lipSync]  each stream's audio-video offset per lip-sync
 *   mark, its summary and BT.1359 verdict (lib/audio/lip-sync.js); null when the run did not measure it (scenario.lipSync)
 * @property {import('../audio/talk.js').TalkResult|null} [talk]  speaking turns: each peer's spurts and each received stream's
 *   level per second with its follows-spurts check (lib/audio/talk.js); null without scenario.talk
 * @property {ReturnType<typeof summarize> & { loss: ReturnType<typeof lossSummary>,
 *   viewer: ViewerSummary|null, emulatorBehind: ReturnType<typeof emulatorBehind>, handover?: import('./handover.js').HandoverSummary|null,
 *   lipSync?: import('../audio/lip-sync.js').OffsetSummary|null, talk?: import('../audio/talk.js').TalkOverall|null }} summary
 *   loss: wire vs after recovery (lib/result/loss.js); emulatorBehind: the call's seconds in which the emulator fell behind its schedule
 * @typedef {object} EmulatorLoadRow  one second of an emulator's own load, from a backend that measures itself
 *   (Emulator.load in emulators/contract.js: the relay; a kernel qdisc cannot)
 * @property {number} epochMs      end of the second
 * @property {number} packetsIn    datagrams it took in
 * @property {number} packetsOut   datagrams it sent
 * @property {number|null} busyPct  share of the second its event loop was busy, in %
 * @property {number|null} lateP99Ms  how late datagrams left against their schedule (null: none left)
 * @property {number|null} lateMaxMs
 * @property {number|null} [wakeP99Ms]  relay, native path: from the kernel's arrival stamp to the relay's read (the
 *   host's delay; a link's delay absorbs it, on a link without delay it shows in the truth's one-way delay)
 * @property {number|null} [wakeMaxMs]
 * @property {number|null} [timerWakeMaxMs]  relay, native path: how long after its send timer's time the host woke it
 *   while it was idle (the host's scheduling); null: no such wake-up
 * @property {number|null} [offCpuMaxMs]  relay, native path: the longest time within one busy turn of its event loop
 *   that the host did not run it (wall time minus its thread's CPU time)
 * @property {boolean} behind      lateP99Ms over its limit (relay: 1 ms native, 2 ms dgram): it fell behind its
 *   schedule and was no longer exact that second
 * @property {string} [packetPath]  the relay's sockets and timer: native or dgram
 * @typedef {Omit<EmulatorLoadRow, 'epochMs'> & { t: number|null }} EmulatorLoadEntry  network.emulatorLoad's, on the media clock
 *
 * @typedef {{ streams: ReturnType<typeof withGetStatsFreezes>, overall: ReturnType<typeof viewerSection>['overall'],
 *   clockErrors?: ReturnType<typeof glassToGlassClockError> }} ViewerSummary  clockErrors: --grid, per stream (lib/grid/clock-offset.js)
 * @typedef {Pick<ReturnType<typeof viewerSection>, 'freezes'|'quality'|'readCost'> & { captures: number,
 *   unmatchedCaptures: number, droppedCaptures: number, vmaf: import('../viewer/viewer.js').VmafAvailability }} ViewerResult
 * @typedef {{ batches: import('../viewer/viewer.js').FrameBatch[], scores: import('../viewer/viewer.js').QualityScore[], captures: number,
 *   unmatchedCaptures: number, droppedCaptures: number, vmaf: import('../viewer/viewer.js').VmafAvailability }} ViewerInput
 */

/**
 * Assembles result.json. Pure: everything it needs is passed in; times given on the wall clock (epochMs) are
 * put on the media clock (seconds since the call started, negative before it).
 * @param {object} input
 * @param {RunStatus} input.status
 * @param {RunError[]} input.errors
 * @param {{ compiled: import('../network/schedule.js').CompiledNetwork, durationS: number, warmupS: number, peers: number,
 *   flows?: import('../cross/flows.js').Flow[], network?: { bottleneck?: unknown },
 *   publish?: Record<string, import('../media/publish.js').Publish>, turn?: { transport: string }|null,
 *   peerNetwork?: import('../network/nat-profile.js').PeerNetworks, talk?: import('../audio/talk.js').TalkPattern|null }
 *   & Record<string, unknown>} input.scenario  the resolved scenario, compiled network included
 * @param {Environment} input.environment
 * @param {TimelineEntry[]} input.samples    as the pages sent them (validated at the signaling edge)
 * @param {Array<{ epochMs: number, type: string, peer?: string|null }>} input.events  the set-up breakdown comes from them
 * @param {{ emulator: string, truth: Array<{ epochMs: number }>, commands: SystemCommand[], scheduleEvents: ScheduleEvent[],
 *   traceSteps?: TraceSteps|null, emulatorLoad?: EmulatorLoadRow[]|null }} input.network  commands are stamped in
 *   seconds since the run started; emulatorLoad: null (or absent) when the emulator does not measure itself
 * @param {{ startedAtEpochMs: number, mediaStartEpochMs: number|null }} input.clock
 * @param {string[]} input.peers
 * @param {FlowRow[]} [input.flowRows]  rates the run measured outside the pages (iperf3, relay), on the media clock;
 *   the call and data-channel rows are derived here from the samples
 * @param {Array<{ epochMs: number, flow: string, direction: string, bytesOut: number, [field: string]: unknown }>} [input.flowTruth]
 *   the relay's per-tunnel truth of kernel flows, once a second
 * @param {{ rows: Array<{ epochMs: number, process: string, cpuPct: number, rssMb: number, processCount: number }>,
 *   unavailable: string|null, turn?: import('../devices/turn-load.js').TurnLoadSection }} [input.processes]  CPU, memory; coturn's load
 * @param {{ rows: Array<{ epochMs: number, peer: string, feed: string, direction: string }>, unavailable: string|null }} [input.sfu]
 *   Janus's Admin API readings (sfu/janus/admin-sampler.js), in an SFU call
 * @param {Parameters<typeof loadSection>[0]} [input.load]  the load participants' counters (sfu/load-participants.js)
 * @param {ViewerInput} [input.viewer]  the frames the pages presented and the captured frames' scores (run/viewer-collector.js)
 * @param {import('../audio/audio-windows.js').AudioQuality|null} [input.audio]  the played-out audio's scores (run/audio-quality.js)
 * @param {import('../audio/lip-sync.js').LipSyncResult|null} [input.lipSync]  the offsets per mark (run/final-result.js: paired on the
 *   pages' own clocks, before a Grid run's frame times are moved onto the orchestrator's)
 * @param {{ rows: Array<Omit<import('../devices/node-resources.js').BrowserRow, 't'> & { epochMs: number }>,
 *   unavailable: string|null, memory?: { unavailable: string|null, errors: Record<string, string> } }} [input.gridBrowsers]
 *   --grid: every browser's CPU over CDP, memory from its node and heap once a second (run/grid-observer.js)
 * @returns {RunResult}
 */
export function buildResult({
  status, errors, scenario, environment, samples, events, network, clock, peers, processes, sfu, flowRows = [], flowTruth = [], viewer,
  gridBrowsers, audio = null, lipSync = null, load,
}) {
  /** @param {number} epochMs */
  const atS = (epochMs) => (clock.mediaStartEpochMs === null ? null : Number(((epochMs - clock.mediaStartEpochMs) / 1000).toFixed(3)));
  const { compiled, ...scenarioForResult } = scenario;
  const configured = configuredTimeline(compiled, scenario.durationS);
  const truth = network.truth.map(({ epochMs, ...row }) => ({ t: atS(epochMs), ...row }));
  const emulatorLoad = network.emulatorLoad ? network.emulatorLoad.map(({ epochMs, ...row }) => ({ t: atS(epochMs), ...row })) : null;
  const samplesInRun = samples.filter((sample) => sample.t <= scenario.durationS).sort(bySecondPeerRemote);
  const seen = viewer && clock.mediaStartEpochMs !== null ? viewerSection({
    batches: viewer.batches, scores: viewer.scores, media: environment.media.peers, mediaStartEpochMs: clock.mediaStartEpochMs,
    durationS: scenario.durationS, warmupS: scenario.warmupS,
  }) : null;
  const withSeen = withViewer(withWireLoss(samplesInRun, truth, compiled.routes), seen?.perSecond ?? []);
  const timeline = withLipSyncPerSecond(withMosPerSecond(withSeen, audio?.streams ?? []), lipSync?.streams ?? []);
  const setup = setupBreakdown({ events, peers });
  const setupMs = Object.fromEntries(peers.map((peer) => [peer, setup.peers[peer].sinceLaunchMs.firstFrame]));
  const flows = flowsSection(scenario, timeline, flowRows, flowTruth.map(({ epochMs, ...row }) => ({ t: atS(epochMs), ...row })));
  const talk = scenario.talk ? talkSection({
    talk: scenario.talk, events: events.map((event) => ({ ...event, atS: atS(event.epochMs) })), timeline,
    warmupS: scenario.warmupS, durationS: scenario.durationS,
  }) : null;
  const handoverInput = { compiled, events, atS, freezes: seen?.freezes ?? null, timeline, durationS: scenario.durationS };
  return {
    schemaVersion: SCHEMA_VERSION,
    status,
    errors,
    scenario: scenarioForResult,
    environment,
    timeline,
    events: events.map((event) => ({ atS: atS(event.epochMs), ...event })).sort((a, b) => a.epochMs - b.epochMs),
    network: {
      emulator: network.emulator,
      links: compiled.links,
      routes: compiled.routes,
      configured,
      truth,
      emulatorLoad,
      commands: network.commands.map((command) => ({ ...command, atS: atS(clock.startedAtEpochMs + command.atS * 1000) ?? command.atS })),
      scheduleEvents: network.scheduleEvents,
      traceSteps: network.traceSteps ?? null,
    },
    flows,
    setup,
    resources: {
      ...resourcesSection(processes, atS, scenario, environment.cpus), ...gridResources(environment.grid, gridBrowsers, atS, scenario),
    },
    sfu: sfu ? sfuSection(sfu, atS, scenario.durationS) : null, load: load ? loadSection(load, atS, scenario.durationS) : null,
    // Simulcast and SVC: each publisher's layers, each subscriber's received layer and switches, and their checks.
    layers: Object.keys(scenario.publish ?? {}).length ? layersSection({
      publish: scenario.publish ?? {}, media: environment.media?.peers ?? {}, timeline, compiled, peers,
      warmupS: scenario.warmupS, durationS: scenario.durationS,
      events: events.map((event) => ({ ...event, atS: atS(event.epochMs) })),
    }) : null,
    paths: pathsSection(timeline, scenario.turn ?? null, scenario.peerNetwork ?? {}, { sfu: scenario.topology === 'sfu' }),
    handovers: handoverSection(handoverInput),
    viewer: seen && viewer ? {
      freezes: seen.freezes, quality: seen.quality, readCost: seen.readCost, captures: viewer.captures,
      unmatchedCaptures: viewer.unmatchedCaptures, droppedCaptures: viewer.droppedCaptures, vmaf: viewer.vmaf,
    } : null,
    audio,
    lipSync,
    talk,
    summary: {
      ...summarize({
        timeline, warmupS: scenario.warmupS, durationS: scenario.durationS, setupMs, configured, routes: compiled.routes,
        scheduleEvents: network.scheduleEvents, flows,
      }),
      loss: lossSummary({ truth, timeline, routes: compiled.routes, windowS: [scenario.warmupS, scenario.durationS] }),
      // Over the whole call: a second the emulator fell behind in warm-up still shaped what the browsers adapted to.
      emulatorBehind: emulatorBehind(emulatorLoad, [0, scenario.durationS]),
      lipSync: lipSync?.overall ?? null,
      talk: talk?.overall ?? null,
      handover: handoverSummary(handoverSection(handoverInput)),
      viewer: seen && {
        streams: withGetStatsFreezes(seen.streams, timeline, [scenario.warmupS, scenario.durationS]), overall: seen.overall,
        ...(environment.grid?.clocks ? { clockErrors: gridClockErrors(Object.keys(seen.streams), environment.grid) } : {}),
      },
    },
  };
}

/**
 * result.json when buildResult threw (a bug, or data no check foresaw): the run failed, an error says why, and only
 * what needs no computing is kept (the scenario, the times, the system commands), so the writer always has a result
 * and the report and the suite can read it. Pure; throws on nothing it is given.
 * @param {{ status: RunStatus, errors: RunError[], scenario: Record<string, unknown>, error: unknown, emulator: string,
 *   commands: SystemCommand[], startedAt: Date, endedAt: Date }} input
 * @returns {RunResult}
 */
export function unbuiltResult({ status, errors, scenario, error, emulator, commands, startedAt, endedAt }) {
  const { compiled, ...scenarioForResult } = scenario;
  const message = `building result.json failed (${error instanceof Error ? `${error.name}: ${error.message}` : typeof error}); `
    + 'the measurements are left out of this result: report this with the run\'s log';
  const result = {
    schemaVersion: SCHEMA_VERSION,
    status: status === 'aborted' ? 'aborted' : 'failed',
    errors: [...errors, { atS: null, peer: null, message }],
    scenario: scenarioForResult,
    environment: { emulator, startedAt: startedAt.toISOString(), endedAt: endedAt.toISOString() },
    timeline: [],
    events: [],
    network: {
      emulator, links: {}, routes: {}, configured: [], truth: [], emulatorLoad: null, commands, scheduleEvents: [], traceSteps: null,
    },
    flows: { list: [], rows: [], truth: [] },
    setup: { milestones: [...SETUP_MILESTONES], peers: {} },
    resources: { unavailable: 'not built', rows: [], summary: {}, hostSaturation: hostSaturation([], 0) },
    sfu: null,
    viewer: null,
    summary: { peers: {}, overall: {}, setupMs: { max: null }, loss: null, viewer: null, emulatorBehind: null },
  };
  return /** @type {RunResult} */ (/** @type {unknown} */ (result));
}

/**
 * result.json `flows`: the flows list, and every flow's rate per second within the run, sorted by second and flow.
 * @param {Parameters<typeof flowList>[0]} scenario @param {TimelineEntry[]} timeline @param {FlowRow[]} flowRows
 * @param {Array<{ t: number|null, bytesOut: number, [field: string]: unknown }>} truth  per tunnel direction, media clock
 */
function flowsSection(scenario, timeline, flowRows, truth) {
  const list = flowList(scenario);
  const rows = [...pageFlowRows(list, timeline), ...flowRows.filter((row) => row.t <= scenario.durationS)]
    .sort((a, b) => a.t - b.t || a.flow.localeCompare(b.flow));
  // The wire's view of each kernel flow (the relay's tunnels): what left the bottleneck, TCP retransmissions included.
  const wire = truth.filter((row) => row.t !== null && row.t > 0 && row.t <= scenario.durationS)
    .map((row) => ({ ...row, rateKbps: Math.round(row.bytesOut * 8) / 1000 }));
  return { list, rows, truth: wire };
}

/**
 * result.json `resources`: each sampled process tree's CPU (% of one core) and memory per second on the media clock,
 * and per process over the measurement window: mean and p95 CPU, peak memory.
 * @param {{ rows: Array<{ epochMs: number, process: string, cpuPct: number, rssMb: number, processCount: number }>,
 *   unavailable: string|null, turn?: import('../devices/turn-load.js').TurnLoadSection }|undefined} processes
 * @param {(epochMs: number) => number|null} atS
 * @param {{ warmupS: number, durationS: number }} window
 * @param {number} cores
 */
function resourcesSection(processes, atS, { warmupS, durationS }, cores) {
  if (!processes) return { unavailable: 'not sampled', rows: [], summary: {}, hostSaturation: hostSaturation([], cores) };
  const rows = onMediaClock(processes.rows, atS);
  /** @type {Record<string, { cpuPct: ReturnType<typeof describe>, peakRssMb: number }>} */
  const summary = {};
  for (const name of [...new Set(rows.map((row) => row.process))].sort()) {
    const mine = rows.filter((row) => row.process === name && row.t > warmupS && row.t <= durationS);
    if (!mine.length) continue;
    const peakRssMb = mine.reduce((peak, row) => Math.max(peak, row.rssMb), -Infinity);
    summary[name] = { cpuPct: describe(mine.map((row) => row.cpuPct)), peakRssMb };
  }
  const inWindow = rows.filter((row) => row.t > warmupS && row.t <= durationS);
  const turn = processes.turn ? { turn: processes.turn } : {};
  return { unavailable: processes.unavailable, rows, summary, hostSaturation: hostSaturation(inWindow, cores), ...turn };
}

/**
 * result.json `resources.grid` on a Grid run: the browsers' CPU and memory per second and per node (lib/devices/node-resources.js).
 * @param {GridRecord|null|undefined} grid @param {Parameters<typeof buildResult>[0]['gridBrowsers']} browsers
 * @param {(epochMs: number) => number|null} atS @param {{ warmupS: number, durationS: number }} window
 */
function gridResources(grid, browsers, atS, { warmupS, durationS }) {
  if (!grid) return {};
  const nodeOfPeer = nodeOfPeers(grid);
  const nodes = Object.fromEntries(Object.values(grid.peers).map(({ node, uri, cores }) => [node, { uri, cores }]));
  const rows = (browsers?.rows ?? []).map(({ epochMs, ...row }) => ({ t: atS(epochMs), ...row })).filter((row) => row.t !== null);
  return {
    grid: nodeResources({
      rows: /** @type {import('../devices/node-resources.js').BrowserRow[]} */ (rows), nodeOfPeer, nodes, windowS: [warmupS, durationS],
      unavailable: browsers?.unavailable ?? 'not sampled', memory: browsers?.memory,
    }),
  };
}

/**
 * How far each stream's glass-to-glass delay may be off because its ends are on two nodes' clocks.
 * @param {string[]} streams @param {GridRecord} grid
 */
function gridClockErrors(streams, grid) {
  return glassToGlassClockError(streams, nodeOfPeers(grid), grid.clocks ?? {});
}

/**
 * result.json `sfu`: Janus's readings on the media clock up to the end of the call (like the timeline's), in time,
 * peer, feed order.
 * @param {{ rows: Array<{ epochMs: number, peer: string, feed: string, direction: string }>, unavailable: string|null }} sfu
 * @param {(epochMs: number) => number|null} atS @param {number} durationS
 */
function sfuSection(sfu, atS, durationS) {
  const rows = onMediaClock(sfu.rows, atS).filter((row) => row.t <= durationS)
    .sort((a, b) => a.t - b.t || a.peer.localeCompare(b.peer) || a.feed.localeCompare(b.feed) || a.direction.localeCompare(b.direction));
  return { rows: /** @type {SfuRow[]} */ (rows), unavailable: sfu.unavailable };
}

/**
 * Rows on the media clock (t instead of epochMs); none when the call never started its media (no clock).
 * @template {{ epochMs: number }} R
 * @param {R[]} rows @param {(epochMs: number) => number|null} atS
 * @returns {Array<Omit<R, 'epochMs'> & { t: number }>}
 */
function onMediaClock(rows, atS) {
  return rows.flatMap(({ epochMs, ...row }) => {
    const t = atS(epochMs);
    return t === null ? [] : [{ t, ...row }];
  });
}

/** Timeline order; String() because nothing a page sent may be able to stop the result being written. */
/** @param {TimelineEntry} a @param {TimelineEntry} b */
const bySecondPeerRemote = (a, b) => a.t - b.t || String(a.peer).localeCompare(String(b.peer))
  || String(a.remote).localeCompare(String(b.remote));
