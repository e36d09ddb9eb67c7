// --grid: every peer's browser is a Selenium Grid session. All sessions are created before any page loads; if one
// cannot be had, every other is released and the run stops (exit 3) naming the node and the reason, so a partial call
// is never measured. While the call runs, each session is kept alive (the node kills idle ones after a short timeout,
// so that a killed orchestrator leaves no browser behind for long) and a session that is gone names its node.
import { deleteSession, gridStatus, newSession, touchSession, authHeaders } from '../grid/client.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvironmentError, InputError } from '../lib/system/errors.js';
import { browserVersionOf, cdpEndpoint, gridNodes, nodeAddress, nodeMediaPath, placePeers, sessionRequest } from '../lib/grid/grid.js';
import { chromiumArgs } from './browsers.js';

const KEEP_ALIVE_MS = 5000;

/**
 * A grid-node that has just registered is listed UP only after the hub's first health check, and slots freed by a run
 * that just ended come back a moment later: placement is tried again for this long before the run stops.
 */
const PLACEMENT_WAIT_MS = 15_000;

/**
 * @typedef {{ id: string, node: import('../lib/grid/grid.js').GridNode, address: string, endpoint: string,
 *   headers: Record<string, string> }} GridSession
 *   address: where its browser gathers ICE candidates (lib/grid/grid.js nodeAddress)
 * @typedef {{ record: import('../lib/result/result.js').GridRecord, sessions: Map<string, GridSession>,
 *   watch: (onLost: (peer: string, message: string) => void) => void, release: () => Promise<void> }} GridSessions
 */

/**
 * The Grid's nodes and each peer's node label (lib/grid/grid.js placePeers), read again while a placement cannot be
 * met, up to PLACEMENT_WAIT_MS.
 * @param {string} gridUrl @param {import('../lib/grid/grid-config.js').GridSecrets} secrets @param {string[]} peers
 * @param {{ spread: boolean, placement: Record<string, string> }} options @param {(line: string) => void} log
 */
async function placeOnGrid(gridUrl, secrets, peers, options, log) {
  const deadline = Date.now() + PLACEMENT_WAIT_MS;
  for (let attempt = 0; ; attempt += 1) {
    const nodes = gridNodes(await gridStatus(gridUrl, secrets));
    try {
      return { nodes, labels: placePeers(peers, nodes, options) };
    } catch (error) {
      if (!(error instanceof InputError) || Date.now() >= deadline) throw error;
      if (attempt === 0) log(`grid: ${error.message}; asking the Grid again for up to ${PLACEMENT_WAIT_MS / 1000} s`);
      await sleep(1000);
    }
  }
}

/**
 * @param {{ gridUrl: string, secrets: import('../lib/grid/grid-config.js').GridSecrets, peers: string[], spread: boolean,
 *   placement: Record<string, string>, argsFor: (peer: string, node: import('../lib/grid/grid.js').GridNode) => string[],
 *   log: (line: string) => void }} options
 * @returns {Promise<GridSessions>}
 */
export async function openGridSessions({ gridUrl, secrets, peers, spread, placement, argsFor, log }) {
  const { nodes, labels } = await placeOnGrid(gridUrl, secrets, peers, { spread, placement }, log);
  /** @param {string} peer */
  const nodeOf = (peer) => /** @type {import('../lib/grid/grid.js').GridNode} */ (nodes.find((node) => node.label === labels[peer]));
  // Checked before any session exists.
  const addresses = new Map(peers.map((peer) => [peer, nodeAddress(nodeOf(peer))]));
  const opened = await Promise.allSettled(peers.map((peer) => newSession(gridUrl, secrets,
    sessionRequest({ label: labels[peer], binary: nodeOf(peer).binary, args: argsFor(peer, nodeOf(peer)) }))));
  const release = async (/** @type {string[]} */ ids) => {
    await Promise.all(ids.map((id) => deleteSession(gridUrl, secrets, id).catch((error) => log(`grid: releasing session ${id}: ${error.message}`))));
  };
  const ids = opened.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.id] : []));
  const failed = opened.findIndex((outcome) => outcome.status === 'rejected');
  if (failed !== -1) {
    await release(ids);
    const node = nodeOf(peers[failed]);
    const reason = /** @type {PromiseRejectedResult} */ (opened[failed]).reason;
    throw new EnvironmentError(`--grid: no browser session for ${peers[failed]} on grid-node ${node.label} (${node.uri}): ${reason.message}; `
      + `released the ${ids.length} sessions already made, so no partial call ran; see that node's grid.log`);
  }
  /** @type {Map<string, GridSession>} */
  const sessions = new Map();
  /** @type {import('../lib/result/result.js').GridRecord} */
  const record = { url: new URL(gridUrl).origin, emulation: 'central relay', peers: {} };
  for (const [index, peer] of peers.entries()) {
    const { id, capabilities } = /** @type {PromiseFulfilledResult<Awaited<ReturnType<typeof newSession>>>} */ (opened[index]).value;
    const node = nodeOf(peer);
    /** @type {{ endpoint: string, browserVersion: string|null }} */
    let checked;
    try {
      if (typeof capabilities['se:cdp'] !== 'string') {
        throw new EnvironmentError(`--grid: grid-node ${node.label} gave ${peer}'s session no se:cdp endpoint; start the node with CDP enabled (grid-node does)`);
      }
      checked = {
        endpoint: cdpEndpoint(capabilities['se:cdp'], gridUrl),
        browserVersion: browserVersionOf(capabilities.browserVersion, `the Grid's new session for ${peer} on grid-node ${node.label}`),
      };
    } catch (error) {
      await release(ids);
      throw error;
    }
    const address = /** @type {string} */ (addresses.get(peer));
    sessions.set(peer, { id, node, address, endpoint: checked.endpoint, headers: authHeaders(secrets) });
    record.peers[peer] = { node: node.label, uri: node.uri, cores: node.cores, browserVersion: checked.browserVersion, sessionId: id };
    log(`${peer}: grid session on ${node.label} (${node.uri}), Chromium ${checked.browserVersion ?? '?'}`);
  }
  let timer = /** @type {NodeJS.Timeout|undefined} */ (undefined);
  return {
    record,
    sessions,
    watch: (onLost) => {
      timer = setInterval(() => {
        for (const [peer, { id, node }] of sessions) {
          touchSession(gridUrl, secrets, id).catch((error) => onLost(peer, `grid-node ${node.label} (${node.uri}) lost ${peer}'s session: ${error.message}`));
        }
      }, KEEP_ALIVE_MS);
    },
    release: async () => {
      clearInterval(timer);
      await release(ids);
    },
  };
}

/**
 * A Grid peer's Chromium flags: the local ones with the fake-device files in the media folder its node staged, and
 * headless unless asked (a node needs no display).
 * @param {{ video: string, audio: string }} media @param {string} pageOrigin @param {import('../lib/grid/grid.js').GridNode} node
 * @param {boolean} headful @param {string|null} [fieldTrials]
 */
export function gridChromiumArgs(media, pageOrigin, node, headful, fieldTrials = null) {
  const onNode = { video: nodeMediaPath(media.video, node.mediaDir), audio: nodeMediaPath(media.audio, node.mediaDir) };
  return [...chromiumArgs(onNode, pageOrigin, fieldTrials), ...(headful ? [] : ['--headless=new'])];
}

/**
 * Where the emulator finds --grid's peers: each one's node, known once the sessions are open (after the emulator starts).
 * @param {{ listen: string, secrets: import('../lib/grid/grid-config.js').GridSecrets }} options
 * @param {() => GridSessions|undefined} sessions
 * @returns {import('../emulators/contract.js').RemotePeers}
 */
export function gridRemotePeers({ listen, secrets }, sessions) {
  return {
    bindAddress: listen,
    registrationSecret: secrets.registrationSecret,
    nodeOf: (peer) => {
      const session = sessions()?.sessions.get(peer);
      return session && { label: session.node.label, address: session.address, relay: session.node.relay };
    },
  };
}
