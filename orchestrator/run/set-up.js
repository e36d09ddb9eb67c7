// A run's set-up: the devices' cgroups, the emulator, the SFU (sfu/index.js, through its contract), kernel flows and the
// signaling server, then the browsers (peer-launch.js) up to a connected call.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startSignalingServer } from '../../signaling/server.js';
import { backendNamed, chooseBackend, createChosen, emulatorFlagsWith } from '../emulators/index.js';
import { requirementsOf } from '../emulators/contract.js';
import { firstIpv4Address } from '../emulators/candidates.js';
import { cgroupLimits } from '../lib/devices/devices.js';
import { KERNEL_FLOW_KINDS, shortTcpBursts } from '../lib/cross/flows.js';
import { SFU_NODE, allPeerNames } from '../lib/network/topology.js';
import { withoutPeers } from '../lib/network/schedule.js';
import { startKernelFlows } from '../cross/kernel-flows.js';
import { sfuNamed, startLoadParticipants } from '../sfu/index.js';
import { ensureLoadMedia } from '../../media/generate.js';
import { hold, holder } from './call-lifecycle.js';
import { createPeerCgroups } from './cgroups.js';
import { openGridSessions, gridChromiumArgs, gridRemotePeers } from './grid-sessions.js';
import { launchPeers, mediaUrlPath, waitForConnections, watchConnections } from './peer-launch.js';
import { startTurnServer } from './turn-server.js';
import { needsPort443, udpBlockedPeers } from '../lib/network/nat-profile.js';

/** @param {{ peerNetwork?: Record<string, unknown> }} scenario  a scenario read back from an older result has none */
const hasPeerNetwork = (scenario) => Object.keys(scenario.peerNetwork ?? {}).length > 0;

/** @typedef {import('./call-state.js').Call} Call */
/** @typedef {import('./call-state.js').LiveCall} LiveCall */
/** @typedef {import('../emulators/contract.js').Emulator} Emulator */
/** @typedef {import('../sfu/contract.js').Sfu} Sfu */

/**
 * Emulator, signaling server and one browser per peer, up to every peer of the main call connected to every other
 * (in an SFU call: to Janus once, and to each other peer's stream through it) and every extra call's peer joined.
 * @param {Call} call
 * @returns {Promise<LiveCall>} the call with its emulator, signaling server and room
 */
export async function setUpCall(call) {
  const { scenario, recorder } = call;
  const room = `run-${randomBytes(4).toString('hex')}`;
  // Emulator commands are stamped on the run clock; buildResult moves them onto the media clock.
  const clock = () => (Date.now() - call.startedAt.getTime()) / 1000;
  await limitDevices(call, room, clock);
  const { emulator, sfuAddress } = await startEmulator(call, room, clock);
  const sfu = scenario.topology === 'sfu' ? await startSfu(call, emulator, sfuAddress, clock) : null;
  // Peers behind a NAT or firewall get the server as their STUN server too, and ICE chooses among the paths left. An
  // SFU call needs none: the SFU is reachable, and learns a NATed peer's address from its checks.
  if (scenario.turn || (hasPeerNetwork(scenario) && !sfu)) await startTurn(call, emulator, scenario, clock);
  await startCrossTraffic(call, emulator, room, clock);
  // Only the pages get them (in their URLs' fragments), and the server to check their joins.
  const secrets = call.createSecrets(allPeerNames(scenario));
  const signaling = await startSignaling(call, emulator, sfu, room, secrets);
  const live = Object.assign(call, { emulator, signaling, room });
  const connections = watchConnections(live, Boolean(sfu));
  if (recorder.signal.aborted) return live;
  if (call.gridOptions) await openGrid(call, new URL(signaling.httpUrl).origin);
  // After the Grid's sessions: a load participant's links are on the node relay of a peer's node, known from then.
  if (call.scenario.load && call.sfuRoom) await startLoad(call, call.scenario.load, call.sfuRoom);
  await launchPeers(live, { viaSfu: Boolean(sfu), secrets });
  await waitForConnections(live, connections);
  return live;
}

/**
 * The constrained devices' cgroups, made first and removed last (after the browsers): a host that cannot limit a
 * device's CPU stops the run before anything starts.
 * @param {Call} call @param {string} runId @param {() => number} clock
 */
async function limitDevices(call, runId, clock) {
  call.cgroups = await createPeerCgroups({
    limits: cgroupLimits(call.scenario.devices), runId, where: call.scenario.file, clock, logFile: path.join(call.runDir, 'cgroups.log'),
    logCommand: (record) => call.commands.push(record), registerCleanup: holder(call),
  });
  for (const [peer, { name, paths, quotaUs, periodUs, cpus }] of Object.entries(call.cgroups?.record.peers ?? {})) {
    call.log(`${peer}: cgroup ${name}${quotaUs === null ? '' : `, ${quotaUs} µs per ${periodUs} µs`}${cpus === null ? '' : `, cores ${cpus}`} (${paths.join(', ')})`);
  }
}

/**
 * The emulator, held on the call as soon as it exists; its closer is registered before its set-up starts, so an
 * interrupt half way removes what was built. In an SFU call, also the address Janus gathers on.
 * @param {Call} call @param {string} runId @param {() => number} clock
 * @returns {Promise<{ emulator: Emulator, sfuAddress: string|undefined }>}
 */
async function startEmulator(call, runId, clock) {
  const peers = allPeerNames(call.scenario);
  const asked = requirementsOf(call.scenario, call.kinds, KERNEL_FLOW_KINDS, sfuNamed(call.sfuName).capabilities);
  const chosen = await chooseBackend(call.emulatorName, asked, call.scenario.compiled);
  if (call.scenario.load) shapeLoadLinks(call, chosen.backend);
  // The relay rewrites candidates towards the host address Janus will gather on; netem builds Janus a namespace.
  // Relays on the Grid's nodes reach Janus on the Grid's side of this host (--grid-listen), which the nodes route to.
  const onNodes = chosen.backend.gridNodes && call.gridOptions;
  const sfuAddress = call.scenario.topology === 'sfu' ? (onNodes ? onNodes.listen : firstIpv4Address() ?? undefined) : undefined;
  const emulator = await createChosen(chosen, {
    compiled: call.scenario.compiled, durationS: call.scenario.durationS, peers, runId, browserPath: call.executables.chromium?.path,
    clock, log: call.log, sfuAddress, hostAddressPeers: peers.filter((peer) => call.kinds[peer] === 'firefox'),
    guardianLog: path.join(call.runDir, 'netem-guardian.log'), registerCleanup: holder(call),
    middleNode: Boolean(call.scenario.turn) || hasPeerNetwork(call.scenario), peerNetwork: call.scenario.peerNetwork,
    ...(call.gridOptions ? { remotePeers: gridRemotePeers(call.gridOptions, () => call.grid) } : {}),
  });
  call.emulator = emulator;
  call.log(`emulator: ${emulator.name}${emulator.choice ? ` (${emulator.choice})` : ''}`);
  if (emulator.pid) call.processes.track(emulator.name, emulator.pid);
  return { emulator, sfuAddress };
}

/**
 * Whether the load participants' media crosses their links (`load0.up`, …): the emulator must carry them
 * (supports.loadParticipantLinks) and the SFU must leave their descriptions to the harness (not signalsItself); else their
 * links leave the network the run builds, and the result says why.
 * @param {Call} call @param {import('../emulators/contract.js').EmulatorBackend} backend
 */
function shapeLoadLinks(call, backend) {
  const { scenario } = call;
  if (!scenario.load) return;
  const sfu = sfuNamed(call.sfuName);
  const why = !backend.supports.loadParticipantLinks ? `--emulator ${backend.name}: ${backend.why?.loadParticipantLinks ?? 'it declares no load participant links'}`
    : sfu.capabilities.signalsItself ? `--sfu ${sfu.name}: its load participants signal to it themselves, so the harness sees no candidate of theirs to steer`
      : null;
  call.loadLinks = { shaped: why === null, why };
  if (why !== null) call.scenario = { ...scenario, compiled: withoutPeers(scenario.compiled, scenario.load.names) };
}

/** Where the pages reach this host: the signaling server listens there. @param {Call} call @param {Emulator} emulator */
const pagesReach = (call, emulator) => call.gridOptions?.listen ?? emulator.signalingHost;

/**
 * The run's SFU (call.sfuName, from sfu/index.js), where the emulator puts the SFU node: in a namespace of its own
 * (netem's sfuHost) or on the host, gathering on iceAddress. Its closer is registered before it starts; an SFU that
 * cannot start is an EnvironmentError (with its log tail) before any browser launches.
 * @param {Call} call @param {Emulator} emulator @param {string|undefined} iceAddress @param {() => number} clock  seconds on the run clock
 * @returns {Promise<Sfu>}
 */
async function startSfu(call, emulator, iceAddress, clock) {
  const host = emulator.sfuHost ?? undefined;
  const backend = sfuNamed(call.sfuName);
  const sfu = await backend.start({
    runDir: call.runDir, registerCleanup: holder(call), publishers: call.scenario.peers + (call.scenario.load?.participants ?? 0),
    iceTcp: udpBlockedPeers(call.scenario.peerNetwork ?? {}).length > 0,
    logCommand: (record) => { call.commands.push(record); call.log(`${backend.name}: ${record.cmd}`); }, clock,
    ...(host ? { host } : { iceAddress, pagesAddress: pagesReach(call, emulator) }),
  });
  call.sfu = sfu;
  call.processes.track(sfu.name, sfu.pid);
  call.log(sfu.describe);
  return sfu;
}

/**
 * The scenario's TURN (or, for its peer networks, STUN) server (run/turn-server.js) in the emulator's middle namespace,
 * where every peer's packets to it cross that peer's shaped links; its closer is registered before it starts. The
 * emulator's support was checked first. A tcp-443-only firewall has its TCP or TLS listener on 443.
 * @param {Call} call @param {Emulator} emulator @param {Call['scenario']} scenario @param {() => number} clock
 */
async function startTurn(call, emulator, { turn, peerNetwork }, clock) {
  if (!emulator.sfuHost) throw new Error(`emulator ${emulator.name} placed no middle namespace for the TURN server`);
  call.turn = await startTurnServer({
    runDir: call.runDir, registerCleanup: holder(call), host: emulator.sfuHost, transport: turn?.transport ?? 'udp', port443: needsPort443(peerNetwork), clock,
    logCommand: (record) => { call.commands.push(record); call.log(`turnserver: ${record.cmd}`); },
  });
  call.processes.track('turnserver', call.turn.pid);
  call.log(`turnserver: ${call.turn.url} (its log: ${path.relative(call.runDir, call.turn.logFile)})`);
}

/**
 * The scenario's kernel flows (iperf3 TCP/UDP in namespaces, through the emulator's tunnels): built before any browser
 * starts, so a missing tool or a failed bridge stops the run early; their clients start on the media clock.
 * @param {Call} call @param {Emulator} emulator @param {string} runId @param {() => number} clock
 */
async function startCrossTraffic(call, emulator, runId, clock) {
  // The filter leaves only the kernel kinds, which tsc cannot narrow from an array lookup.
  const kernel = /** @type {import('../cross/kernel-flow-plan.js').KernelFlow[]} */ ((call.scenario.flows ?? [])
    .filter((flow) => KERNEL_FLOW_KINDS.includes(flow.kind)));
  const flows = kernel.map((flow) => (flow.kind === 'tcp-short' ? { ...flow, bursts: shortTcpBursts(flow) } : flow));
  if (!flows.length) return;
  // checkSupport turned such a run away before anything started.
  if (!emulator.tunnels) throw new Error(`emulator ${emulator.name} carries no kernel flows; run with ${emulatorFlagsWith((b) => b.supports.kernelFlows)}`);
  call.kernelFlows = await startKernelFlows({
    flows, tunnels: emulator.tunnels, runDir: call.runDir, runId, clock, registerCleanup: holder(call),
    logCommand: (record) => call.commands.push(record),
    onError: (error) => call.recorder.fail(`kernel flow: ${error.message}`),
  });
  call.log(`kernel flows: ${flows.map((flow) => `${flow.name} (${flow.kind})`).join(', ')}`);
}

/**
 * The signaling server (and in an SFU call the SFU's room, whose bridge speaks for the SFU in it), serving each
 * media-element peer's WebM; with an SFU that reads its own stats, its sampler.
 * @param {Call} call @param {Emulator} emulator @param {Sfu|null} sfu @param {string} room @param {Map<string, string>} secrets
 */
async function startSignaling(call, emulator, sfu, room, secrets) {
  const { recorder, log } = call;
  const sfuRoom = sfu && await sfu.createRoom({
    room, peers: allPeerNames(call.scenario), rewriteCandidate: emulator.rewriteCandidate, log,
    videoCodecs: [...new Set(Object.values(call.scenario.publish ?? {}).map((publish) => publish.codec.name))],
    send: (peer, message) => signaling.sendTo(room, peer, message),
    onError: (error) => recorder.fail(`SFU bridge: ${error.message}`),
    // A failed reading is a warning, never the run's failure.
    onWarning: (source, message) => recorder.event({ type: 'warning', source, message }),
    ...(call.scenario.load ? {
      load: { ...call.scenario.load, shaped: Boolean(call.loadLinks?.shaped) },
    } : {}),
  });
  /** @type {Record<string, string>} */
  const files = { ...sfuRoom?.pageFiles };
  for (const peer of allPeerNames(call.scenario)) {
    const { capture, screen } = call.media.peers[peer];
    if (capture) files[mediaUrlPath(peer)] = capture;
    if (screen) files[mediaUrlPath(`${peer}-screen`)] = screen.capture;
  }
  // An SFU the pages signal to themselves gets their candidates only through the page, which steers each through here.
  const signalsItself = sfu !== null && sfuNamed(call.sfuName).capabilities.signalsItself;
  const signaling = await startSignalingServer({
    host: pagesReach(call, emulator), rewriteCandidate: emulator.rewriteCandidate, room, secrets,
    bridge: sfuRoom?.signalingBridge ?? undefined, files, ...(signalsItself ? { steerCandidate: steerThrough(emulator) } : {}),
    otherRemotes: call.scenario.load?.participants ?? 0,
  });
  call.signaling = signaling;
  hold(call, 'signaling server', () => signaling.close());
  if (sfuRoom) {
    hold(call, 'SFU room', () => sfuRoom.close());
    call.sfuRoom = sfuRoom;
    if (sfuRoom.sampler) call.sfuSampler = sfuRoom.sampler;
  }
  log(`signaling: ${signaling.wsUrl} room ${room}`);
  return signaling;
}

/**
 * The scenario's load participants (sfu/load-participants.js), publishing into the room before the browsers join:
 * files made once from the run's media, each process owned like the SFU's and sampled like a browser.
 * @param {Call} call @param {import('../lib/media/load-participants.js').LoadRequest} request
 * @param {import('../sfu/contract.js').SfuRoom} room
 */
async function startLoad(call, request, room) {
  const { recorder } = call;
  call.load = await startLoadParticipants({
    request, room, mediaDir: await ensureLoadMedia(call.media), runDir: call.runDir, registerCleanup: holder(call),
    log: call.log,
    onError: (error) => recorder.fail(error.message),
    onWarning: (message) => recorder.event({ type: 'warning', source: 'load', message }),
    track: (name, pid) => call.processes.track(name, pid),
    // Shaped where the emulator places them (netem: each in a namespace of its own), else on this host.
    netnsOf: (name) => (call.loadLinks?.shaped ? call.emulator?.hostOf?.(name).netns : undefined),
  });
  hold(call, 'load participants\' counters', async () => call.load?.stop());
  call.log(call.loadLinks?.shaped ? 'load participants\' links: shaped like the peers\'' : `load participants' links: not shaped (${call.loadLinks?.why})`);
}

/**
 * A page's candidate with an SFU it signals to itself, rewritten by the emulator as the Janus bridge's are.
 * @param {Emulator} emulator @returns {import('../../signaling/server.js').SteerCandidate}
 */
const steerThrough = (emulator) => ({ peer, direction, candidate }) => emulator.rewriteCandidate(
  direction === 'toSfu' ? { from: peer, to: SFU_NODE, candidate } : { from: SFU_NODE, to: peer, candidate });

/**
 * Every peer's Grid session, before any page loads; they are released after the browsers' connections close.
 * @param {Call} call @param {string} pageOrigin
 */
async function openGrid(call, pageOrigin) {
  const { url, secrets, spread } = /** @type {NonNullable<Call['gridOptions']>} */ (call.gridOptions);
  call.grid = await openGridSessions({
    gridUrl: url, secrets, spread, peers: allPeerNames(call.scenario), placement: call.scenario.placement ?? {}, log: call.log,
    argsFor: (peer, node) => gridChromiumArgs(call.media.peers[peer], pageOrigin, node, call.headful, call.scenario.fieldTrials),
  });
  hold(call, 'grid sessions', () => call.grid?.release());
  const { emulator } = call;
  if (emulator && backendNamed(emulator.name).gridNodes) call.grid.record.emulation = 'node relays';
  if (emulator?.probePaths) call.grid.record.paths = await emulator.probePaths();
  for (const p of call.grid.record.paths ?? []) {
    call.log(`path ${p.from} → ${p.to}: RTT min ${p.rttMsMin} ms, median ${p.rttMsMedian} ms, loss ${p.lossPct} %`);
  }
}
