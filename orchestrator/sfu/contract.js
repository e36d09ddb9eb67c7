// The SFU contract: what every SFU implementation (janus/, and any new one in a folder of its own) provides and
// declares. The run and the commands reach an SFU only through these types and sfu/index.js; what an SFU can do
// (simulcast codecs, SVC modes, who picks each subscriber's layer, its own stats) it declares here, and callers read
// that, never its name. test/unit/sfu-registry.test.js checks every registered SFU's declarations.

/** @typedef {import('../emulators/contract.js').RegisterCleanup} RegisterCleanup */
/** @typedef {import('../emulators/command-runner.js').CommandRecord} CommandRecord */
/**
 * One media stream of one SFU leg in one reading (Janus: sfu/janus/admin-sampler.js SfuRow, with more fields).
 * @typedef {{ epochMs: number, peer: string, feed: string, role: string, kind: string, direction: 'fromPeer'|'toPeer',
 *   bitrateKbps: number }} SfuRow
 */

/**
 * What an SFU forwards, declared, not guessed: a scenario asking for more stops with exit 2 before anything starts.
 * @typedef {object} SfuCapabilities
 * @property {string[]} simulcastCodecs  codecs (lib/media/codec.js CODEC_NAMES) whose simulcast layers it forwards
 * @property {string[]} svcCodecs        codecs whose SVC layers it forwards
 * @property {string[]} svcModes         scalability modes (W3C webrtc-svc, e.g. L1T3, L3T3) it forwards
 * @property {'harness'|'sfu'} layerChoice  who picks each subscriber's layer: `harness`, the run from the subscriber's
 *   measured downlink through SfuRoom.selectLayer (Janus VideoRoom picks none by bandwidth); `sfu`, the SFU itself
 *   (LiveKit's adaptive stream and dynacast)
 * @property {boolean} ownStats  it exposes its own per-leg readings (SfuRoom.sampler), recorded as result.json's `sfu`
 * @property {boolean} signalsItself  its pages exchange descriptions and ICE candidates with it directly (its own client
 *   protocol), not through the harness's bridge: each page steers its candidates with it through the signaling server's
 *   `steer` to the emulator's rewriteCandidate (client-app/candidate-steering.js), and an emulator carries it only if it
 *   declares directSfu (emulators/contract.js)
 * @property {boolean} loadParticipants  a room takes load participants (SfuRoom.addLoadParticipant): cheap publishers beside
 *   the browsers (sfu/load-participants.js), whose streams the browsers receive like a peer's
 * @property {boolean} iceTcp  it offers passive TCP candidates when SfuOptions.iceTcp asks (ICE-TCP, RFC 6544), so a peer
 *   whose firewall blocks UDP (a scenario's peerNetwork udp-blocked) still reaches it
 */

/**
 * How a page reaches the SFU, which the page acts on (client-app/app.js) and the caller passes on unread.
 * `signaling`: the page offers to the SFU node through the run's signaling server and a bridge speaks the SFU's own API
 * for it (Janus). An SFU with its own client protocol (LiveKit's livekit-client) adds its protocol here with the
 * server's `url` and the peer's `token` (a secret: it travels in the page URL's fragment, like the join secret).
 * @typedef {object} SfuPageConfig
 * @property {string} protocol  `signaling`, or the SFU's own (the page refuses one it does not speak)
 * @property {string} [url]
 * @property {string} [token]
 * @property {boolean} [thumbnails]  the page itself asks the lowest layer of the load participants' video (an SFU whose
 *   client library chooses: LiveKit), to see them as thumbnails
 */

/**
 * The SFU's own view of the call, once a second (Janus: its Admin API). A failed reading is a warning, never the run's failure.
 * @typedef {object} SfuStatsSampler
 * @property {() => void} start
 * @property {() => Promise<unknown>} stop
 * @property {SfuRow[]} rows
 * @property {string|null} unavailable  why it could not read at all
 */

/**
 * A layer a subscriber asks the SFU to forward (simulcast: `substream`, 0 the lowest; SVC: `spatial`; with `temporal`).
 * @typedef {{ spatial: number, temporal: number }} LayerRequest
 */

/**
 * Where the SFU's signaling meets the run: set-up builds the room before the signaling server, whose `send` the SFU
 * uses once pages talk.
 * @typedef {object} RoomOptions
 * @property {string} room       the run's room (its signaling room, `run-<hex>`): a name for the SFU's own room
 * @property {string[]} peers    every publisher of the room
 * @property {string[]} videoCodecs  the codecs the publishers ask for (lib/media/publish.js), preferred first; empty: the SFU's default
 * @property {(peer: string, message: object) => void} send  delivers a message to a page (the signaling server's sendTo)
 * @property {import('../emulators/contract.js').Emulator['rewriteCandidate']} rewriteCandidate  the emulator's: steers the
 *   SFU's media through the emulated links
 * @property {(error: Error) => void} onError    a failure outside a page's request: the run fails
 * @property {(source: string, message: string) => void} onWarning  a failed stats reading (source: what failed, e.g. janus-admin)
 * @property {(line: string) => void} [log]
 * @property {LoadRoom} [load]  the room's load participants (capabilities.loadParticipants), publishers beside `peers`,
 *   each added with SfuRoom.addLoadParticipant
 * @typedef {import('../lib/media/load-participants.js').LoadRequest & { shaped: boolean }} LoadRoom  the scenario's
 *   request (whom each receives, what the pages receive of each); shaped: their descriptions' candidates go through
 *   rewriteCandidate as a page's (an SFU that signals to them itself ignores it)
 */

/**
 * A description between a load participant and the SFU (lib/media/load-participants.js LoadDescription): `pc` `pub` is
 * its publishing connection, another its subscription to that publisher's stream.
 * @typedef {import('../lib/media/load-participants.js').LoadDescription} LoadDescription
 */

/**
 * How a load participant joins, which its process acts on (sfu/load-peer `-join`) and the caller passes on unread.
 * `descriptions`: its descriptions travel through the harness, `take` gets its own (Janus). An SFU with its own client
 * protocol (LiveKit) names it, with the server's `url`, the participant's `token` (a secret: it reaches the process on
 * its stdin, never its command line), whether it receives the others' streams and, given a speaker, only that peer's.
 * @typedef {{ protocol: 'descriptions', take: (message: LoadDescription) => Promise<void> }
 *   | { protocol: 'livekit', url: string, token: string, subscribe: boolean, speaker: string|null }} LoadJoin
 * @typedef {(name: string, deliver: (message: LoadDescription) => void) => LoadJoin} AddLoadParticipant
 */

/**
 * A room of a running SFU, as a run uses it.
 * @typedef {object} SfuRoom
 * @property {(peer: string) => SfuPageConfig} pageConfig  what a peer's page needs to publish and subscribe
 * @property {import('../../signaling/server.js').Bridge|null} signalingBridge  takes the
 *   pages' offers, answers and candidates to the SFU node (protocol `signaling`); null when the pages speak to the SFU itself
 * @property {SfuStatsSampler|null} sampler   its own readings (capabilities.ownStats)
 * @property {Record<string, string>} [pageFiles]  files the pages load beside the client app (URL path → file), served
 *   by the signaling server (an SFU's client library)
 * @property {((subscriber: string, feed: string, layer: LayerRequest) => Promise<void>)|undefined} [selectLayer]  asks
 *   the SFU to forward `feed`'s layer to `subscriber` (capabilities.layerChoice `harness`)
 * @property {AddLoadParticipant|undefined} [addLoadParticipant]  joins one of RoomOptions.load's participants: how it
 *   joins (LoadJoin); with `descriptions`, the SFU's descriptions for it go to `deliver`, and with RoomOptions.load.shaped
 *   its media crosses its links, as a page's (capabilities.loadParticipants)
 * @property {() => Promise<void>} close
 */

/**
 * A running SFU. Its closer is registered (through SfuOptions.registerCleanup) before its process starts.
 * @typedef {object} Sfu
 * @property {string} name
 * @property {string|null} version  as the running server reports it (validated: a short version string, else null)
 * @property {number} pid           its process, sampled like the browsers'
 * @property {string} describe      one line for the run's log: where it listens and where its media goes
 * @property {(options: RoomOptions) => Promise<SfuRoom>} createRoom
 * @property {() => Promise<void>} close
 */

/**
 * What a run hands an SFU's start().
 * @typedef {object} SfuOptions
 * @property {string} runDir        its configuration and log go to <runDir>/<name>/
 * @property {RegisterCleanup} registerCleanup
 * @property {(record: CommandRecord) => void} logCommand  the command line that started it (network.commands)
 * @property {() => number} clock   seconds on the run clock, for the command record
 * @property {string} [iceAddress]  the one address its media uses (the emulator rewrites candidates towards it)
 * @property {{ netns: string, address: string }} [host]  run it in this namespace (the emulator's sfuHost)
 * @property {string} [pagesAddress]  outside a namespace, where the pages reach this host (the signaling server's
 *   address: loopback, or under --grid the address the nodes reach it on): an SFU the pages signal to itself
 *   (capabilities.signalsItself) listens there; default loopback
 * @property {number} publishers    how many peers publish, load participants included
 * @property {boolean} [iceTcp]     offer TCP candidates too (capabilities.iceTcp): a peer of the run has no UDP
 */

/**
 * One SFU implementation, in its own folder, registered in sfu/index.js.
 * @typedef {object} SfuBackend
 * @property {string} name
 * @property {string} summary           one line for --help and docs
 * @property {SfuCapabilities} capabilities
 * @property {(options: SfuOptions) => Promise<Sfu>} start  registers its closer before it starts anything; an SFU that
 *   cannot start is an EnvironmentError (exit 3) saying what to install or fix
 */

/** The capability fields a backend declares, in the order the conformance test reads them. */
export const CAPABILITY_FIELDS = /** @type {const} */ (['simulcastCodecs', 'svcCodecs', 'svcModes', 'layerChoice', 'ownStats', 'signalsItself', 'loadParticipants', 'iceTcp']);

/** Who may pick a subscriber's layer. */
export const LAYER_CHOICES = /** @type {const} */ (['harness', 'sfu']);

/** A version string as a server may report it: short, no spaces or markup. */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}$/;

/**
 * A reported version, checked at the edge: a hostile or broken server's answer becomes null, never result.json text.
 * @param {unknown} value @returns {string|null}
 */
export const checkedVersion = (value) => (typeof value === 'string' && VERSION.test(value) ? value : null);
