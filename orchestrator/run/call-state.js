// The state of one call that run/run.js passes between its phases (set-up.js, hold-call.js, tear-down) and on to
// final-result.js: what the run was given, what set-up built, and what the call collected. Types only.

/**
 * @typedef {Awaited<ReturnType<typeof import('../../signaling/server.js').startSignalingServer>>} SignalingServer
 * @typedef {Awaited<ReturnType<typeof import('../../media/generate.js').ensureRunMedia>>} RunMedia
 * @typedef {import('../../signaling/messages.js').Sample} Sample
 */

/**
 * @typedef {object} Call
 * @property {import('../lib/scenario/scenario-file.js').ResolvedScenario} scenario
 * @property {Record<string, import('../lib/scenario/peer-browsers.js').BrowserKind>} kinds  peer → its browser
 * @property {Record<string, { path: string, source: string }>} executables  browser kind → its executable
 * @property {RunMedia} media  the run's media and each peer's own
 * @property {boolean} headful
 * @property {string} emulatorName  as asked (emulators/index.js), before the backend is built
 * @property {string} sfuName  the SFU of an SFU call (sfu/index.js), as asked
 * @property {Date} startedAt
 * @property {import('./recorder.js').Recorder} recorder
 * @property {(sample: Sample, elapsedS: number|null) => void} [onSample]
 * @property {(line: string) => void} log
 * @property {(peers: string[]) => Map<string, string>} createSecrets  the pages' join secrets
 * @property {import('./process-sampler.js').ProcessSampler} processes
 * @property {Array<() => Promise<void>>} releases  the closers set-up registered, run by tear-down
 * @property {string} runDir
 * @property {import('../emulators/contract.js').CommandRecord[]} commands  the system commands the run started itself (Janus,
 *   kernel flows), beside the emulator's
 * @property {Array<{ epochMs: number, flow: string, direction: string, bytesOut: number }>} flowTruth
 * @property {number[]} traceStepLateMs  how late each trace rate step was applied (netem, dummynet)
 * @property {Map<string, import('puppeteer').Page>} pages  peer → its page
 * @property {import('../emulators/contract.js').Emulator|null} emulator  null until set-up built it
 * @property {SignalingServer} [signaling]  from set-up on
 * @property {string} [room]  the run's signaling room (its run id), from set-up on
 * @property {import('./cgroups.js').PeerCgroups|null} [cgroups]  the constrained devices' CPU cgroups
 * @property {import('../sfu/contract.js').Sfu} [sfu]  an SFU call's running SFU
 * @property {import('../sfu/contract.js').SfuRoom} [sfuRoom]  its room of the run
 * @property {import('../sfu/contract.js').SfuStatsSampler} [sfuSampler]  the SFU's own readings, where it has them
 * @property {Awaited<ReturnType<typeof import('../sfu/index.js').startLoadParticipants>>} [load]  the SFU room's load participants
 * @property {import('../lib/media/load-participants.js').LoadLinks} [loadLinks]  whether their media crosses links of
 *   their own, and why not (set-up.js, from what the emulator and the SFU declare)
 * @property {import('./turn-server.js').TurnServer} [turn]  the scenario's TURN server (scenario.turn)
 * @property {import('../cross/kernel-flows.js').KernelFlows} [kernelFlows]
 * @property {import('./viewer-collector.js').ViewerCollector} [viewer]
 * @property {import('./audio-collector.js').AudioCollector} [audio]  what each page played out (scenario.audioQuality)
 * @property {import('./lip-sync-collector.js').LipSyncCollector} [lipSync]  the tone onsets each page heard (scenario.lipSync)
 * @property {import('./run.js').RunOptions['grid']} [gridOptions]  --grid: the hub and placement options
 * @property {import('./browser-pool.js').BrowserPool} [browserPool]  browsers kept between a suite's runs (browser-pool.js)
 * @property {import('./grid-sessions.js').GridSessions} [grid]  --grid: every peer's Grid session
 * @property {import('./grid-observer.js').GridObserver} [gridObserver]  --grid: the nodes' clocks and browsers, read over CDP
 */

/**
 * @typedef {Call & { emulator: import('../emulators/contract.js').Emulator, signaling: SignalingServer, room: string }} LiveCall
 *   the call once set-up (set-up.js) built its emulator and signaling server: what the call itself and the pages use
 */

// A module, so that its typedefs are imported by path rather than global.
export {};
