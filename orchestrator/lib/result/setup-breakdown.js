// Where a peer's set-up time goes: the milestones from its browser launch to its first decoded video frame, in ms
// since that launch began, from the run's events (the orchestrator's own and the page's). Pure.

/** In the order a two-party call usually reaches them; the page joins while its getUserMedia runs. */
export const SETUP_MILESTONES = Object.freeze([
  'browserLaunched', 'pageLoaded', 'joined', 'mediaReady', 'negotiated', 'iceConnected', 'dtlsConnected', 'firstRtp', 'firstFrame',
]);

/** Milestones reached once per remote peer. */
export const REMOTE_MILESTONES = Object.freeze(['negotiated', 'iceConnected', 'dtlsConnected', 'firstRtp', 'firstFrame']);

/** The event that starts a peer's clock: run/run.js records it just before puppeteer.launch. */
export const LAUNCH_EVENT = 'launch-started';

/**
 * The event that marks each milestone: browser-launched, page-loaded and joined come from run/run.js (puppeteer
 * and the signaling server), the others from client-app/app.js.
 * @type {Record<string, (event: { type: string, state?: unknown }) => boolean>}
 */
const MARKS = {
  browserLaunched: (event) => event.type === 'browser-launched',
  pageLoaded: (event) => event.type === 'page-loaded',
  mediaReady: (event) => event.type === 'media-ready',
  joined: (event) => event.type === 'joined',
  negotiated: (event) => event.type === 'negotiated',
  iceConnected: (event) => event.type === 'ice-state' && (event.state === 'connected' || event.state === 'completed'),
  dtlsConnected: (event) => event.type === 'dtls-state' && event.state === 'connected',
  firstRtp: (event) => event.type === 'first-rtp',
  firstFrame: (event) => event.type === 'first-frame',
};

/**
 * @typedef {Record<string, number|null>} Milestones  milestone name -> ms since launch, null when not reached
 * @typedef {{ launchEpochMs: number|null, sinceLaunchMs: Milestones, remotes: Record<string, Milestones> }} PeerSetup
 *   sinceLaunchMs holds every milestone; for a per-remote one, the first remote to reach it (as summary.setupMs)
 * @typedef {{ milestones: string[], peers: Record<string, PeerSetup> }} SetupBreakdown
 */

/**
 * @param {{ events: Array<{ type: string, epochMs: number, peer?: string|null, remote?: unknown, state?: unknown }>,
 *   peers: string[] }} input  events in any order; those of other peers or remotes are ignored
 * @returns {SetupBreakdown}
 */
export function setupBreakdown({ events, peers }) {
  return {
    milestones: [...SETUP_MILESTONES],
    peers: Object.fromEntries(peers.map((peer) => [peer, peerSetup(events.filter((event) => event.peer === peer), peer, peers)])),
  };
}

/** @param {Array<{ type: string, epochMs: number, remote?: unknown }>} events one peer's @param {string} peer @param {string[]} peers */
function peerSetup(events, peer, peers) {
  const launchEpochMs = earliest(events.filter((event) => event.type === LAUNCH_EVENT));
  const since = (/** @type {number|null} */ epochMs) => (launchEpochMs === null || epochMs === null ? null : epochMs - launchEpochMs);
  const remotes = Object.fromEntries(peers.filter((remote) => remote !== peer).map((remote) => {
    const fromRemote = events.filter((event) => event.remote === remote);
    return [remote, Object.fromEntries(REMOTE_MILESTONES.map((name) => [name, since(earliest(fromRemote.filter(MARKS[name])))]))];
  }));
  const sinceLaunchMs = Object.fromEntries(SETUP_MILESTONES.map((name) => [name, REMOTE_MILESTONES.includes(name)
    ? smallest(Object.values(remotes).map((milestones) => milestones[name]))
    : since(earliest(events.filter(MARKS[name])))]));
  return { launchEpochMs, sinceLaunchMs, remotes };
}

/** @param {Array<{ epochMs: number }>} events @returns {number|null} */
const earliest = (events) => smallest(events.map((event) => event.epochMs));

/**
 * A loop, not Math.min(...values): past ~120 000 arguments the spread throws a RangeError, and a page decides how
 * many events there are.
 * @param {Array<number|null>} values @returns {number|null}
 */
function smallest(values) {
  let min = null;
  for (const value of values) if (value !== null && Number.isFinite(value) && (min === null || value < min)) min = value;
  return min;
}

/**
 * One connection's set-up on the path ICE selected first: the phases between its per-remote milestones, so a TURN/TCP
 * call's slower ICE or DTLS reads beside a direct one's. null where either end of a phase was not reached.
 * @typedef {{ peer: string, remote: string, path: string, negotiatedMs: number|null, iceMs: number|null,
 *   dtlsMs: number|null, firstFrameMs: number|null, totalMs: number|null }} PathSetup
 */

/**
 * Each connection that has both set-up milestones and a selected pair. `negotiatedMs` and `totalMs` are since the
 * peer's browser launch; `iceMs` (negotiated → ICE connected), `dtlsMs` (→ DTLS connected) and `firstFrameMs`
 * (→ first decoded frame) are the phases.
 * @param {{ peers: Record<string, PeerSetup> }} setup  result.setup
 * @param {Array<{ peer: string, remote: string, paths: Array<{ label: string, firstT: number }> }>} connections
 *   result.paths.connections (lib/result/ice-paths.js)
 * @returns {PathSetup[]}
 */
export function setupByPath(setup, connections) {
  return connections.flatMap(({ peer, remote, paths }) => {
    const milestones = setup.peers[peer]?.remotes[remote];
    if (!milestones || !paths.length) return [];
    const first = paths.reduce((a, b) => (b.firstT < a.firstT ? b : a));
    /** @param {string} from @param {string} to */
    const phase = (from, to) => (milestones[from] === null || milestones[to] === null ? null : milestones[to] - milestones[from]);
    return [{
      peer, remote, path: first.label, negotiatedMs: milestones.negotiated, iceMs: phase('negotiated', 'iceConnected'),
      dtlsMs: phase('iceConnected', 'dtlsConnected'), firstFrameMs: phase('dtlsConnected', 'firstFrame'), totalMs: milestones.firstFrame,
    }];
  });
}
