// A run's browsers: one per peer, launched at once with its page's URL, and the watch on signaling that tells when
// the call is up (every main-call connection, every join, every codec report asked for).
import { MAX_EVENT_TEXT_CHARS } from '../../signaling/messages.js';
import { codecMismatch } from '../../client-app/codec.js';
import { videoConstraints } from '../lib/devices/devices.js';
import { mainCallHolds } from '../lib/cross/flow-commands.js';
import { LAUNCH_EVENT } from '../lib/result/setup-breakdown.js';
import { pageUrl } from '../lib/system/peer-secrets.js';
import { SFU_NODE, allPeerNames, scenarioPeers } from '../lib/network/topology.js';
import { TONE_HZ } from '../lib/audio/lip-sync-marks.js';
import { hold, sleep } from './call-lifecycle.js';
import { launchPeer } from './browsers.js';
import { gridWarning, observeGrid } from './grid-observer.js';

/** @typedef {import('./call-state.js').LiveCall} LiveCall */

const CONNECT_TIMEOUT_MS = 45_000;

/** Where the signaling server serves a media-element peer's WebM. @param {string} peer */
export const mediaUrlPath = (peer) => `/media/${peer}.webm`;

/**
 * @typedef {object} ConnectionWatch
 * @property {Promise<void>} whenConnected  resolves once the call is up
 * @property {() => string} progress  what is up so far, for the timeout's message
 */

/**
 * Listens to the pages through signaling: samples and events into the recorder, and the call's readiness.
 * @param {LiveCall} call @param {boolean} viaSfu  every peer also connects to Janus
 * @returns {ConnectionWatch}
 */
export function watchConnections(call, viaSfu) {
  const { scenario, recorder, signaling } = call;
  const mainPeers = scenarioPeers(scenario);
  const peers = allPeerNames(scenario);
  /** @type {Set<string>} */ const connected = new Set();
  /** @type {Set<string>} */ const joined = new Set();
  // Every main-call peer's connection to each other one, and in an SFU call its publisher connection as well. An
  // extra call connects only when its flow starts.
  const expectedConnections = mainPeers.length * (viaSfu ? mainPeers.length : mainPeers.length - 1);
  let allConnected = () => {};
  /** @type {Promise<void>} */
  const whenConnected = new Promise((resolve) => { allConnected = () => resolve(undefined); });
  // With a requested codec the call starts only once every main-call connection's video says, both ways, which codec it
  // uses: a mismatch fails the run before any second is measured.
  /** @type {Set<string>} */ const codecReports = new Set();
  const expectedCodecReports = scenario.codec ? 2 * mainPeers.length * (mainPeers.length - 1) : 0;
  const checkReady = () => connected.size === expectedConnections && joined.size === peers.length
    && codecReports.size === expectedCodecReports && allConnected();
  signaling.events.on('rejected', (rejection) => recorder.rejected(rejection));
  signaling.events.on('join', ({ peer }) => {
    recorder.event({ type: 'joined', peer });
    joined.add(peer);
    checkReady();
  });
  signaling.events.on('stats', (sample) => {
    if (recorder.mediaStartEpochMs === null) return;
    recorder.samples.push(sample);
    call.onSample?.(sample, recorder.atS());
  });
  signaling.events.on('event', (event) => {
    recorder.pageEvent(event);
    if (event.type === 'error') recorder.fail(event.message, event.peer);
    if (event.type === 'codec' && scenario.codec) {
      const mismatch = codecMismatch(scenario.codec, event);
      if (mismatch) recorder.fail(mismatch, event.peer);
      if (mainPeers.includes(event.peer) && mainPeers.includes(event.remote)) codecReports.add(`${event.peer}->${event.remote} ${event.direction}`);
      checkReady();
    }
    if (event.type === 'connection-state') {
      const inMainCall = mainPeers.includes(event.peer) && (mainPeers.includes(event.remote) || event.remote === SFU_NODE);
      if (event.state === 'connected' && inMainCall) connected.add(`${event.peer}->${event.remote}`);
      // 'disconnected' is transient (consent checks starved on a harsh link) and stays in the events; 'failed' is final.
      if (event.state === 'failed') recorder.fail(`connection to ${event.remote} failed`, event.peer);
      checkReady();
    }
  });
  const progress = () => `${connected.size} of ${expectedConnections} connections up, ${joined.size} of ${peers.length} peers joined`
    + `${expectedCodecReports ? `, ${codecReports.size} of ${expectedCodecReports} codec reports` : ''}`;
  return { whenConnected, progress };
}

/**
 * Waits for the call to be up; a call not up within CONNECT_TIMEOUT_MS fails the run.
 * @param {LiveCall} call @param {ConnectionWatch} connections
 */
export async function waitForConnections(call, connections) {
  const { recorder } = call;
  const connectWait = new AbortController();
  const timedOut = sleep(CONNECT_TIMEOUT_MS, recorder.signal, connectWait.signal).then(() => 'timeout');
  const outcome = await Promise.race([connections.whenConnected.then(() => 'connected'), timedOut]);
  connectWait.abort();
  if (outcome === 'timeout' && !recorder.signal.aborted) {
    recorder.fail(`peers did not connect within ${CONNECT_TIMEOUT_MS / 1000} s (${connections.progress()}); see the events in result.json`);
  }
}

/**
 * Launches every peer's browser at once (launched one after another, the first peer's set-up time included the
 * others' launches); every browser that did start is held for tear-down before the first failure is thrown.
 * @param {LiveCall} call @param {{ viaSfu: boolean, secrets: Map<string, string> }} options
 */
export async function launchPeers(call, { viaSfu, secrets }) {
  const { scenario, recorder, emulator, log } = call;
  let closing = false;
  const launches = await Promise.allSettled(allPeerNames(scenario).map(async (peer) => {
    recorder.event({ type: LAUNCH_EVENT, peer });
    const device = scenario.devices?.[peer];
    const media = call.media.peers[peer];
    const kind = call.kinds[peer];
    const spec = call.grid ? {} : trustingTurn(await emulator.launchSpec?.(peer, call.executables[kind].path, kind), kind, call.turn);
    const launchSpec = spec ?? {};
    // Only a plain launch is kept between runs: an emulator's wrapper, a device's cgroup or a Grid session are the run's.
    const plain = !call.grid && !device && !launchSpec.executablePath && !launchSpec.args?.length && !launchSpec.env;
    const launched = await launchPeer({
      kind, executablePath: call.executables[kind].path, media, url: peerPageUrl(call, peer, viaSfu, secrets), headful: call.headful,
      cpuThrottlingRate: device?.cpuThrottlingRate, fieldTrials: scenario.fieldTrials,
      // Before the page loads, so the call never runs unlimited; the processes forked later inherit the cgroup.
      beforeLoad: async (pid) => {
        if (!call.cgroups?.record.peers[peer]) return;
        if (!pid) throw new Error(`${peer}: the browser's process id is unknown, so its CPU cannot be limited`);
        recorder.event({ type: 'cgroup-attached', peer, processes: await call.cgroups.attach(peer, pid) });
      },
      launchSpec, attach: call.grid?.sessions.get(peer), pool: plain ? call.browserPool : undefined,
      onMilestone: (type) => recorder.event({ type, peer }),
      // As long as an event's text may be at the signaling edge: a page prints what it likes.
      onConsole: (text) => recorder.pageEvent({ type: 'console-error', peer, text: text.slice(0, MAX_EVENT_TEXT_CHARS) }),
      onCrash: (message) => !closing && recorder.fail(call.grid ? `${message} (grid-node ${call.grid.record.peers[peer].node})` : message, peer),
    });
    recorder.browserVersions[peer] = launched.version;
    recorder.browserReused[peer] = launched.reused;
    call.pages.set(peer, launched.page);
    const pid = launched.browser.process()?.pid;
    if (pid) call.processes.track(peer, pid);
    hold(call, `browser ${peer}`, async () => { closing = true; await launched.close(); });
    log(`${peer}: ${launched.version} launched`);
  }));
  const failed = launches.find((launch) => launch.status === 'rejected');
  if (failed) throw failed.reason;
  call.grid?.watch((peer, message) => !closing && recorder.fail(message, peer));
  // Read before the browsers close (a closer registered after theirs runs before them).
  const readMemory = call.emulator?.processMemory?.bind(call.emulator);
  if (call.grid) call.gridObserver = await observeGrid(call.pages, gridWarning(recorder), readMemory);
  if (call.gridObserver) hold(call, 'grid observer', call.gridObserver.stop);
}

/**
 * A Chromium launch that trusts the run's TURN server's throwaway certificate, and no other certificate it would not
 * trust anyway: WebRTC checks a `turns:` server's certificate.
 * @param {{ executablePath?: string, args?: string[], env?: Record<string, string> }|undefined} spec
 * @param {string} kind @param {import('./turn-server.js').TurnServer|undefined} turn
 */
const trustingTurn = (spec, kind, turn) => (turn && kind === 'chromium'
  ? { ...spec, args: [...(spec?.args ?? []), `--ignore-certificate-errors-spki-list=${turn.certificateSpki}`] } : spec);

/**
 * What the page publishes with (client-app/app.js): the codec (with the scalability mode every encoding gets once
 * negotiated) and the simulcast rids.
 * @param {import('../lib/media/publish.js').Publish} publish
 */
const pagePublish = ({ codec, sendEncodings }) => ({ codec, sendEncodings });

/**
 * A peer's page URL: whom it calls at join (an extra call's peers call nobody, the main call's call each other
 * only), the main-call directions it holds until their start, and its codec, device and media source.
 * @param {LiveCall} call @param {string} peer @param {boolean} viaSfu @param {Map<string, string>} secrets
 */
function peerPageUrl(call, peer, viaSfu, secrets) {
  const { scenario, signaling, room } = call;
  const mainPeers = scenarioPeers(scenario);
  const device = scenario.devices?.[peer];
  const media = call.media.peers[peer];
  const secret = secrets.get(peer);
  // What the SFU's page needs (sfu/contract.js SfuPageConfig), passed on unread: the page acts on its protocol.
  const sfuPage = viaSfu ? call.sfuRoom?.pageConfig(peer) : undefined;
  if (viaSfu && !sfuPage) throw new Error(`${peer}: an SFU call without the SFU's room: set-up creates it before the pages load`);
  if (secret === undefined) throw new Error(`${peer} has no join secret: createSecrets must return one for every peer`);
  const sfuParams = sfuPage ? {
    sfu: SFU_NODE, sfuProtocol: sfuPage.protocol, ...(sfuPage.url ? { sfuUrl: sfuPage.url } : {}),
    ...(sfuPage.thumbnails ? { sfuThumbnails: '1' } : {}),
    ...(scenario.load ? { loadRemotes: scenario.load.names.join(',') } : {}),
  } : {};
  // Main-call directions that send nothing until their start (or ever, one way): inactive from the first offer.
  const holdTowards = mainCallHolds(scenario).filter((held) => held.peer === peer).map((held) => held.remote).join(',');
  return pageUrl(signaling.httpUrl, {
    peer, room, signal: signaling.wsUrl, callAtJoin: mainPeers.includes(peer) ? mainPeers.join(',') : '',
    ...(holdTowards ? { hold: holdTowards } : {}), ...sfuParams,
    ...(scenario.codec ? { codec: JSON.stringify(scenario.codec) } : {}),
    ...(sfuPage && scenario.publish?.[peer] ? { publish: JSON.stringify(pagePublish(scenario.publish[peer])) } : {}),
    ...(scenario.mediaSource !== 'browser' ? { mediaSource: scenario.mediaSource } : {}),
    ...(scenario.bandwidthEstimation === 'remb' ? { bandwidthEstimation: 'remb' } : {}),
    ...(scenario.audioQuality ? { audioQuality: scenario.audioQuality } : {}),
    ...(scenario.lipSync ? { lipSync: String(TONE_HZ) } : {}),
    ...(scenario.talk ? { playAudio: '1' } : {}),
    ...(device ? { videoConstraints: JSON.stringify(videoConstraints(device)) } : {}),
    ...(media.source === 'media-element' ? { source: media.source, media: mediaUrlPath(peer) } : {}),
    // Every main-call peer learns who shares (each connection to a sharer has a screen m-line); a sharer, its slides' WebM.
    ...(scenario.screenShare && mainPeers.includes(peer) ? { screenShare: scenario.screenShare.peers.join(',') } : {}),
    ...(media.screen ? { screenMedia: mediaUrlPath(`${peer}-screen`) } : {}),
    // The scenario's TURN server; with peer networks, STUN too and ICE free to choose (client-app/ice-config.js).
    ...(call.turn && scenario.turn ? { turn: call.turn.url } : {}),
    ...(call.turn && Object.keys(scenario.peerNetwork ?? {}).length ? { stun: call.turn.stunUrl } : {}),
  }, secret, sfuPage?.token, scenario.turn ? call.turn?.credential : undefined);
}
