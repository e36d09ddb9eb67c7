// The emulator contract: what every network emulator backend (relay/, netem/, dummynet/, and any new one in a folder of
// its own) provides, and what a scenario asks of it. Commands and the run talk to backends only through these types
// and emulators/index.js; what a backend can do is declared here by the backend (its supports, its optional fields and
// methods), never guessed by callers from its name. test/emulator-conformance.test.js runs the same checks against
// every backend that can run on the host.

/** @typedef {import('../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {import('./command-runner.js').CommandRecord} CommandRecord */
/** @typedef {import('./command-runner.js').RunCommand} RunCommand */
/** @typedef {import('./calibration.js').ProbePath} ProbePath */

/**
 * @callback RegisterCleanup  lib/system/shutdown.js onCleanup: registers a closer and returns its early release
 * @param {string} name
 * @param {() => Promise<unknown>} close
 * @param {{ timeoutMs?: number, closeNow?: () => void }} [options]
 * @returns {() => Promise<void>}
 */

/**
 * What a backend can emulate at all. A scenario that needs something its backend lacks stops with exit 2 before
 * anything starts, naming the backends that have it.
 * @typedef {object} EmulatorSupport
 * @property {boolean} sfu          an SFU on the emulated network (topology sfu)
 * @property {boolean} directSfu    an SFU the pages signal to directly (sfu/contract.js signalsItself: LiveKit): each page
 *   steers its candidates with that SFU through the harness to rewriteCandidate (client-app/candidate-steering.js), and
 *   must reach the SFU's own signaling URL
 * @property {boolean} kernelFlows  kernel cross traffic (iperf3 flows `tcp`, `tcp-short`, `udp`) through the bottleneck
 * @property {boolean} firefox      Firefox peers (they gather no ICE candidate on 127.0.0.1)
 * @property {boolean} traceReplay  replays a capacity trace packet by packet (else as rate steps, whose error is reported)
 * @property {boolean} turn         a TURN server between the peers (a scenario's `turn`): a middle node (sfuHost) that every
 *   peer's packets to it reach across that peer's shaped links
 * @property {boolean} peerNetwork  a NAT and a firewall per peer (a scenario's `peerNetwork`, lib/network/nat-profile.js),
 *   on the peer's own kernel path, so every protocol (TCP too) meets them
 * @property {boolean} handover     a peer changes network mid-call (a schedule entry's `handover`, lib/network/handover.js):
 *   it gets a new address and its old one's path dies (Emulator.handover)
 * @property {boolean} loadParticipantLinks  an SFU room's load participants (sfu/load-participants.js: on this host, or
 *   where Emulator.hostOf places them) on links of their own (`load0.up`, `load0.down`) through rewriteCandidate, as a
 *   page's; without it (or with an SFU they signal to themselves) their media reaches the SFU directly and result.json's
 *   `load.linksShaped` is false
 */

/**
 * What one scenario run asks of its emulator, derived from the scenario (requirementsOf).
 * @typedef {object} EmulatorRequirements
 * @property {string} scenario        its name, for messages
 * @property {boolean} sfu
 * @property {boolean} directSfu     its SFU signals to the pages itself
 * @property {{ name: string, kind: string }|null} kernelFlow  the first kernel flow, for messages
 * @property {string[]} firefoxPeers
 * @property {string|null} [turn]    the TURN transport the scenario asks for (lib/network/turn.js); null or absent: none
 * @property {string[]} [peerNetwork]  the peers the scenario's `peerNetwork` puts behind a NAT or firewall; absent: none
 * @property {string[]} [handover]    the peers the scenario's schedule moves to a new network; absent: none
 */

/**
 * What a run hands a backend's create().
 * @typedef {object} EmulatorOptions
 * @property {import('../lib/network/schedule.js').CompiledNetwork} compiled
 * @property {number} [durationS]       how far a trace is turned into rate steps (backends without traceReplay)
 * @property {string[]} peers
 * @property {string} runId
 * @property {string} [browserPath]
 * @property {() => number} [clock]     seconds on the media clock, for each logged command's atS
 * @property {(line: string) => void} [log]
 * @property {RegisterCleanup} [registerCleanup]
 * @property {string} [sfuAddress]      the one address Janus gathers on
 * @property {string[]} [hostAddressPeers]  peers whose browser gathers no loopback candidate (Firefox)
 * @property {RemotePeers} [remotePeers]  peers whose browsers run on other machines (--grid's nodes)
 * @property {string} [guardianLog]     where a guardian logs what it removes after a killed orchestrator
 * @property {boolean} [middleNode]     a middle node (sfuHost) for a server between the peers even in a mesh call (TURN)
 * @property {import('../lib/network/nat-profile.js').PeerNetworks} [peerNetwork]  the peers' NATs and firewalls (supports.peerNetwork)
 */

/**
 * Peers whose browsers run on other machines: their candidates on their machine's address are relayed, through sockets
 * bound on an address of this host those machines reach. Known once their sessions exist, after the emulator starts.
 * @typedef {object} RemotePeers
 * @property {string} bindAddress
 * @property {(peer: string) => { label: string, address: string, relay: string|null }|undefined} nodeOf  the machine of a
 *   peer's browser (undefined: it runs here): its label, its address, and its relay's control address (node-relay)
 * @property {string} [registrationSecret]  opens the nodes' relays (node-relay)
 */

/**
 * @typedef {object} CandidateRewrite
 * @property {string} from  the peer (or `sfu`) that gathered the candidate
 * @property {string} to    the peer it is signalled to
 * @property {{ candidate: string, sdpMid?: string|null, sdpMLineIndex?: number|null }} candidate
 */

/**
 * One truth row: what crossed one link in one second, as the emulator itself counted it.
 * @typedef {{ epochMs: number, link: string } & Record<string, unknown>} TruthRow
 */

/** @typedef {import('../lib/result/result.js').EmulatorLoadRow} EmulatorLoadRow  one second of its own load */

/**
 * A running emulator, as a run uses it.
 * @typedef {object} Emulator
 * @property {string} name
 * @property {string} [choice]          with `auto`: which backend it chose and why
 * @property {number} [pid]             its own process, sampled like the browsers'
 * @property {string} signalingHost     where the pages reach the signaling server
 * @property {{ netns: string, address: string }} [sfuHost]  where Janus runs, when the backend places it
 * @property {(node: string) => { netns: string, address: string }} [hostOf]  where a node's own process runs (a shaped load
 *   participant: in its namespace), when the backend places it; absent: on this host
 * @property {(c: CandidateRewrite) => Promise<CandidateRewrite['candidate']|null>} rewriteCandidate  steers media
 *   through the emulated links; null drops a candidate that would bypass them
 * @property {(peer: string, browserPath: string, kind: string) => Promise<object|undefined>} [launchSpec]  how to
 *   launch a peer's browser (e.g. inside its namespace)
 * @property {(links: Record<string, LinkParams>, atS?: number) => Promise<unknown>} apply  puts link parameters in force
 * @property {import('../lib/network/schedule.js').CompiledNetwork['events']} events  the schedule it applies
 * @property {import('../lib/network/trace-steps.js').TraceStepReport|null} traceSteps  a trace's rate steps against the trace, where it
 *   cannot replay one
 * @property {(epochMs: number) => Promise<void>} [startMedia]  the media clock starts (traces and schedules start with it)
 * @property {() => Promise<TruthRow[]>} truth   rows since the last call
 * @property {() => Promise<EmulatorLoadRow[]>} [load]  its own load, rows since the last call; only a backend that
 *   measures itself has it (the run then records network.emulatorLoad and says when it fell behind)
 * @property {CommandRecord[]} commands  every system command it ran
 * @property {TunnelHost} [tunnels]      present when it supports kernel flows
 * @property {() => Promise<PathProbe[]>} [probePaths]  the real path between the machines it shapes on, probed before
 *   the call (node-relay: node to node, relay to relay)
 * @property {(peer: string, pids: number[]) => Promise<import('../lib/devices/process-memory.js').ProcessMemory[]>} [processMemory]
 *   the memory of a remote peer's browser processes, read on its machine (node-relay: by the node's relay)
 * @property {(peer: string) => Promise<{ fromAddress: string, toAddress: string }>} [handover]  moves a peer to a new
 *   address and kills its old one's path (present exactly when supports.handover); rewriteCandidate then takes the new one
 * @property {() => Promise<unknown>} close
 */

/** @typedef {import('../lib/grid/grid.js').PathProbe} PathProbe */

/**
 * Where kernel flows enter the emulated links (orchestrator/cross/): per flow two UDP sockets, whose datagrams (the
 * flow's IP packets, from its two TUN bridges) cross the tunnel's links at their own size.
 * @typedef {object} TunnelHost
 * @property {(tunnel: Tunnel) => Promise<{ leftPort: number, rightPort: number }>} registerTunnel  opens a flow's two
 *   sockets: the bridge at `left` sends to leftPort, the one at `right` to rightPort
 * @property {() => Promise<TunnelTruthRow[]>} truth  per tunnel, like the links'
 */

/**
 * One kernel flow's tunnel: its bridges' UDP addresses and the links it crosses each way.
 * @typedef {{ name: string, forward: string[], back: string[], left: { address: string, port: number },
 *   right: { address: string, port: number } }} Tunnel
 */

/**
 * Where `calibrate`'s kernel TCP check enters a probe path's emulator: tunnels over links of the check's own, which it
 * puts in force first.
 * @typedef {Pick<TunnelHost, 'registerTunnel'>
 *   & { configure: (config: { links: Record<string, LinkParams> }) => Promise<void> }} ProbeTunnels
 */

/**
 * What crossed one kernel flow's tunnel in one direction in one second: its packets and bytes, its own drops and its
 * packets' time through the route (relay/tunnels.js).
 * @typedef {{ epochMs: number, flow: string, direction: 'forward'|'back', packetsIn: number, bytesIn: number,
 *   packetsOut: number, bytesOut: number, dropsQueue: number, dropsLoss: number, oneWayDelayMsP50: number|null,
 *   oneWayDelayMsP95: number|null }} TunnelTruthRow
 */

/**
 * A paced UDP path through one shaped link, for `calibrate` and the conformance test.
 * @typedef {object} ProbeSession
 * @property {ProbePath} path
 * @property {() => Promise<object>} stats         the emulator's own counters
 * @property {() => Promise<void>} close
 * @property {(c: { params: LinkParams }) => string|null} [skipCase]  why this host cannot run a case
 * @property {(options?: { onResult?: (result: object) => void }) => Promise<object[]>} [extraChecks]  e.g. iperf3
 * @property {ProbeTunnels} [tunnels]  where kernel flows can enter the probed emulator (backends with kernelFlows)
 */

/**
 * How `auto` may choose a backend. It tries the backends that declare this in the registry's order (emulators/index.js
 * BACKENDS), every fallback after the others, and takes the first whose supports carry the scenario, whose preflight
 * finds nothing missing and that can run the scenario's network on this host.
 * @typedef {object} AutoChoice
 * @property {string} fits  why it was chosen, when no backend before it was passed over
 * @property {boolean} [fallback]  runs anywhere (unavailable() is null, nothing unmet): `auto` ends with it, and a
 *   scenario is checked against it before anything starts
 * @property {(compiled: import('../lib/network/schedule.js').CompiledNetwork) => Promise<string[]>} [unmet]  what this
 *   host lacks to run this network on it (empty: it can); without it, unavailable() answers
 */

/**
 * One backend, in its own folder, registered in emulators/index.js. Beside its supports, what it declares is what the
 * run and the commands read of it: `gridNodes` and `auto` here, and which optional methods it has (openProbePath:
 * `calibrate`, with supports.traceReplay also `calibrate --trace`; exportScript and exportTopology: `export-script`;
 * removeLeftovers: `cleanup`). The commands' `--emulator` choices and every message that names a backend to use are
 * computed from these declarations over the registry.
 * @typedef {object} EmulatorBackend
 * @property {string} name
 * @property {string} summary          one line for --help and docs
 * @property {EmulatorSupport} supports
 * @property {Partial<Record<keyof EmulatorSupport, string>>} [why]  why it lacks what it does not support, as the end of
 *   a sentence ("which …")
 * @property {boolean} [gridNodes]     shapes each --grid peer's links on that peer's own node (the relay every grid-node
 *   runs): Janus gathers on the Grid's side of this host (--grid-listen), which the nodes route to, result.json's
 *   environment.grid.emulation is 'node relays', and the nodes read their browsers' memory (Emulator.processMemory)
 * @property {AutoChoice} [auto]       `auto` may choose it
 * @property {() => Promise<string|null>} unavailable  why it cannot run on this host at all (null: it can)
 * @property {(requirements: EmulatorRequirements) => string[]} [preflight]  what this host lacks for these
 *   requirements (exit 3), checked before anything starts
 * @property {(options: EmulatorOptions) => Promise<Emulator>} create  registers its closer before it builds anything
 * @property {() => Promise<ProbeSession>} [openProbePath]
 * @property {(run: RunCommand, options: { runId?: string, dryRun?: boolean }) => Promise<Leftovers>} [removeLeftovers]
 *   what killed runs left (`cleanup`)
 * @property {(compiled: import('../lib/network/schedule.js').CompiledNetwork, request: { scenario: string, durationS: number,
 *   peers: string[], peerNetwork?: import('../lib/network/nat-profile.js').PeerNetworks, middleNode?: boolean },
 *   flags: ScriptFlags) => string}
 *   [exportScript]  a standalone shell script (`export-script`); peerNetwork, middleNode: with supports.peerNetwork
 * @property {(flags: ScriptFlags) => string} [exportTopology]  the bare topology, nothing shaped (`--topology-only`)
 */

/**
 * `export-script`'s backend flags; each backend checks the ones it reads and names them in its errors.
 * @typedef {object} ScriptFlags
 * @property {string} [runId]
 * @property {number} [block]
 * @property {boolean} [schNetem]
 * @property {string} [platform]
 * @property {string[]} [address]
 * @property {number} [peers]
 * @property {boolean} [bottleneck]
 */

/**
 * @typedef {object} Leftovers
 * @property {string[]} netns
 * @property {string[]} rootLinks
 * @property {number[]} pids
 * @property {string[]} liveRuns
 */

/** The supports fields, in the order messages list them. */
export const SUPPORT_FIELDS = /** @type {const} */ (['sfu', 'directSfu', 'kernelFlows', 'firefox', 'traceReplay', 'turn', 'peerNetwork', 'handover',
  'loadParticipantLinks']);

/** The supports fields that change how a run goes, never whether it runs: traces as rate steps, load participants unshaped. */
export const PREFERENCE_FIELDS = /** @type {const} */ (['traceReplay', 'loadParticipantLinks']);

/**
 * @param {{ name: string, topology?: string, flows?: Array<{ name: string, kind: string }>, turn?: { transport: string }|null,
 *   peerNetwork?: Record<string, unknown>, compiled?: { handovers?: Array<{ peer: string }> } }} scenario
 * @param {Record<string, string>} browserOfPeer  'chromium' | 'firefox' per peer
 * @param {readonly string[]} kernelFlowKinds
 * @param {{ signalsItself: boolean }} [sfu]  the run's SFU's capabilities (sfu/contract.js)
 * @returns {EmulatorRequirements}
 */
export function requirementsOf(scenario, browserOfPeer, kernelFlowKinds, sfu = { signalsItself: false }) {
  const kernelFlow = (scenario.flows ?? []).find((flow) => kernelFlowKinds.includes(flow.kind));
  return {
    scenario: scenario.name,
    sfu: scenario.topology === 'sfu',
    directSfu: scenario.topology === 'sfu' && sfu.signalsItself,
    kernelFlow: kernelFlow ? { name: kernelFlow.name, kind: kernelFlow.kind } : null,
    firefoxPeers: Object.keys(browserOfPeer).filter((peer) => browserOfPeer[peer] === 'firefox'),
    turn: scenario.turn?.transport ?? null,
    peerNetwork: Object.keys(scenario.peerNetwork ?? {}),
    handover: [...new Set((scenario.compiled?.handovers ?? []).map((handover) => handover.peer))],
  };
}

/**
 * What a message tells the user to pass: `--emulator relay or --emulator netem`.
 * @param {EmulatorBackend[]} backends
 * @returns {string}
 */
export const emulatorFlags = (backends) => backends.map((backend) => `--emulator ${backend.name}`).join(' or ');

/**
 * Why a backend cannot run these requirements by what it declares, with the backends that can: one sentence each.
 * @param {EmulatorBackend} backend
 * @param {EmulatorRequirements} requirements
 * @param {EmulatorBackend[]} all
 * @returns {string[]}
 */
export function unsupported(backend, requirements, all) {
  const others = (/** @type {keyof EmulatorSupport} */ field) => emulatorFlags(all.filter((b) => b !== backend && b.supports[field]));
  const plural = requirements.firefoxPeers.length === 1 ? 's' : '';
  /** @type {Array<[keyof EmulatorSupport, boolean, string]>} */
  const asks = [
    ['firefox', requirements.firefoxPeers.length > 0, `${requirements.firefoxPeers.join(', ')} run${plural} Firefox`],
    ['sfu', requirements.sfu, `scenario ${requirements.scenario} has topology sfu`],
    ['directSfu', requirements.directSfu, 'its SFU signals to the pages itself (they steer its candidates through the harness)'],
    ['kernelFlows', requirements.kernelFlow !== null, `scenario ${requirements.scenario} has the kernel flow ${requirements.kernelFlow?.name} (${requirements.kernelFlow?.kind})`],
    ['turn', Boolean(requirements.turn), `scenario ${requirements.scenario} has turn (a TURN server over ${requirements.turn})`],
    ['peerNetwork', Boolean(requirements.peerNetwork?.length), `scenario ${requirements.scenario} has peerNetwork (a NAT or firewall for ${requirements.peerNetwork?.join(', ')})`],
    ['handover', Boolean(requirements.handover?.length), `scenario ${requirements.scenario} moves ${requirements.handover?.join(', ')} to a new network (a schedule handover)`],
  ];
  return asks.filter(([field, asked]) => asked && !backend.supports[field])
    .map(([field, , subject]) => `--emulator ${backend.name}: ${subject}, ${backend.why?.[field] ?? `which ${backend.name} cannot emulate`}; use ${others(field) || 'another emulator'}`);
}
