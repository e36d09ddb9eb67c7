// Selenium Grid 4, the pure part: the scenario's `placement`, which node each peer's browser goes to, the new-session
// request, the node stereotype, reading the Grid's /status, and where Puppeteer attaches (se:cdp).
import { isIPv4 } from 'node:net';
import { InputError } from '../system/errors.js';
import { expectObject } from '../input/validate.js';

/** Our capabilities in a node's stereotype (W3C extension capabilities: a prefix and a colon). */
export const CAP = { label: 'wtb:label', mediaDir: 'wtb:mediaDir', cores: 'wtb:cores', relay: 'wtb:relay' };
/** A label is a host-name-like word: it is matched exactly and shown in the report. */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/**
 * @typedef {{ id: string, uri: string, label: string, maxSessions: number, freeSlots: number, binary: string|null,
 *   mediaDir: string|null, cores: number|null, browserVersion: string|null, relay: string|null }} GridNode
 *   relay: its relay's control address, IPv4:port (grid-node)
 */

/**
 * Round trips from one node's relay to another's echo, outside any emulated link, before the call.
 * @typedef {{ from: string, to: string, probes: number, received: number, rttMsMin: number|null, rttMsMedian: number|null,
 *   lossPct: number|null }} PathProbe
 */

/**
 * A scenario's `placement`: peer → node label.
 * @param {unknown} raw @param {number} peers @param {string} file
 * @returns {Record<string, string>}
 */
export function validatePlacement(raw, peers, file) {
  if (raw === undefined) return {};
  const placement = expectObject(raw, `${file}: placement`, Array.from({ length: peers }, (_, i) => `p${i}`),
    { what: 'an object of peer names to grid-node labels, e.g. {"p0": "node1"}' });
  for (const [peer, label] of Object.entries(placement)) {
    if (typeof label !== 'string' || !LABEL.test(label)) {
      throw new InputError(`${file}: placement.${peer}: ${JSON.stringify(label)} is not a node label (letters, digits, ".", "_", "-"; as given to grid-node --label)`);
    }
  }
  return /** @type {Record<string, string>} */ ({ ...placement });
}

/**
 * The IPv4 address a node's browsers gather their ICE candidates on: its URI's host (grid-node --host), which the relay
 * must know to steer their media through the emulated links.
 * @param {GridNode} node @returns {string}
 */
export function nodeAddress(node) {
  const host = URL.canParse(node.uri) ? new URL(node.uri).hostname : '';
  if (!isIPv4(host)) {
    throw new InputError(`--grid: grid-node ${node.label}'s uri ${JSON.stringify(node.uri.slice(0, 200))} has no IPv4 address, which the relay needs to `
      + 'reach its browsers; start that grid-node with --host <its IPv4 address>');
  }
  return host;
}

/** @param {string} label */
export function checkLabel(label) {
  if (!LABEL.test(label)) throw new InputError(`--label ${JSON.stringify(label)}: use letters, digits, ".", "_" and "-" (up to 63), starting with a letter or digit`);
  return label;
}

/**
 * The Chrome slots a grid-node offers: the system Chromium, our label, its staged media, its cores and its relay.
 * @param {{ label: string, binary: string, mediaDir: string, cores: number, relay?: string }} node
 */
export function nodeStereotype({ label, binary, mediaDir, cores, relay }) {
  return {
    browserName: 'chrome', 'goog:chromeOptions': { binary }, [CAP.label]: label, [CAP.mediaDir]: mediaDir, [CAP.cores]: cores,
    ...(relay ? { [CAP.relay]: relay } : {}),
  };
}

/**
 * A stereotype's relay control address: absent, or IPv4:port; anything else names the node and the field.
 * @param {unknown} value @param {string} label
 * @returns {string|null}
 */
export function stereotypeRelay(value, label) {
  if (value === undefined) return null;
  const match = typeof value === 'string' && value.length <= 21 ? /^([\d.]+):(\d{1,5})$/.exec(value) : null;
  if (!match || !isIPv4(match[1]) || Number(match[2]) < 1 || Number(match[2]) > 65535) {
    throw new InputError(`--grid: grid-node ${label}'s stereotype field ${CAP.relay} is not IPv4:port (got ${JSON.stringify(value)?.slice(0, 40)}); restart that node with this project's grid-node`);
  }
  return /** @type {string} */ (value);
}

/**
 * The Grid's /status as nodes that are up, with their labels (a node without ours is not a grid-node of this project
 * and gets no peer).
 * any: the Grid's JSON answer, checked field by field below
 * @param {any} status  the JSON body of GET /status
 * @returns {GridNode[]}
 */
export function gridNodes(status) {
  const nodes = status?.value?.nodes;
  if (!Array.isArray(nodes)) throw new Error('the Grid\'s /status has no value.nodes list; is the URL a Selenium Grid 4 router or hub?');
  return nodes.filter((node) => node.availability === 'UP').flatMap((node) => {
    const slots = Array.isArray(node.slots) ? node.slots : [];
    const stereotype = slots[0]?.stereotype ?? {};
    if (typeof stereotype[CAP.label] !== 'string') return [];
    return [{
      id: String(node.nodeId), uri: String(node.externalUri ?? node.uri), label: stereotype[CAP.label],
      maxSessions: Number(node.maxSessions) || slots.length,
      freeSlots: slots.filter((/** @type {{ session?: unknown }} */ slot) => !slot.session).length,
      binary: stereotype['goog:chromeOptions']?.binary ?? null, mediaDir: stereotype[CAP.mediaDir] ?? null,
      cores: Number.isFinite(stereotype[CAP.cores]) ? stereotype[CAP.cores] : null, browserVersion: stereotype.browserVersion ?? null,
      relay: stereotypeRelay(stereotype[CAP.relay], stereotype[CAP.label].slice(0, 63)),
    }];
  });
}

/**
 * Which node each peer's browser runs on: the scenario's placement first; the other peers round-robin over the nodes
 * with --spread, else each node filled before the next. A node's free slots are never exceeded, so a call that does not
 * fit stops here, before any session exists.
 * @param {string[]} peers @param {GridNode[]} nodes
 * @param {{ spread?: boolean, placement?: Record<string, string> }} options
 * @returns {Record<string, string>} peer → node label
 */
export function placePeers(peers, nodes, { spread = false, placement = {} }) {
  if (!nodes.length) throw new InputError('--grid: the Grid has no grid-node of this project up; start one with `npm run cli -- grid-node --hub <url>`');
  const free = new Map(nodes.map((node) => [node.label, node.freeSlots]));
  /** @param {string} peer @param {string} label @param {string} why */
  const take = (peer, label, why) => {
    const slots = free.get(label);
    if (slots === undefined) throw new InputError(`${why}: no grid-node labelled ${label} is up; labels up: ${[...free.keys()].join(', ')}`);
    if (!slots) throw new InputError(`${why}: grid-node ${label} has no free slot for ${peer}; start it with a larger --max-sessions or place ${peer} elsewhere`);
    free.set(label, slots - 1);
    return label;
  };
  /** @type {Record<string, string>} */
  const placed = {};
  for (const peer of peers) if (placement[peer]) placed[peer] = take(peer, placement[peer], `placement.${peer}`);
  let next = 0;
  for (const peer of peers.filter((p) => !placed[p])) {
    const labels = [...free.keys()];
    const order = spread ? [...labels.slice(next), ...labels.slice(0, next)] : labels;
    const label = order.find((l) => (free.get(l) ?? 0) > 0);
    if (!label) throw new InputError(`--grid: the call has ${peers.length} peers and the Grid's nodes have too few free slots; start more grid-nodes or give them a larger --max-sessions`);
    placed[peer] = take(peer, label, '--grid');
    next = (labels.indexOf(label) + 1) % labels.length;
  }
  return placed;
}

/**
 * The POST /session body for one peer: our label picks the node (the Grid matches extension capabilities against the
 * stereotype), and Chromium gets the node's binary and the peer's flags.
 * @param {{ label: string, binary: string|null, args: string[] }} options
 */
export function sessionRequest({ label, binary, args }) {
  return {
    capabilities: {
      alwaysMatch: {
        browserName: 'chrome', [CAP.label]: label, 'goog:chromeOptions': { ...(binary ? { binary } : {}), args },
      },
    },
  };
}

/**
 * Where Puppeteer attaches: the session's se:cdp, proxied by the router, on the router's address as the user gave it,
 * because a router behind NAT or in a container advertises a host the orchestrator cannot reach.
 * @param {string} cdpUrl  the session's se:cdp (ws://…/session/<id>/se/cdp)
 * @param {string} gridUrl  --grid
 */
export function cdpEndpoint(cdpUrl, gridUrl) {
  const cdp = new URL(cdpUrl);
  const grid = new URL(gridUrl);
  if (!/^wss?:$/.test(cdp.protocol)) throw new Error(`the session's se:cdp ${JSON.stringify(cdpUrl)} is not a WebSocket URL`);
  cdp.protocol = grid.protocol === 'https:' ? 'wss:' : 'ws:';
  cdp.hostname = grid.hostname;
  cdp.port = grid.port;
  cdp.username = '';
  cdp.password = '';
  return cdp.toString();
}

/**
 * A fake-device file's path on a node: the same file name in the media folder its grid-node staged.
 * @param {string} file @param {string|null} mediaDir
 */
export const nodeMediaPath = (file, mediaDir) => (mediaDir ? `${mediaDir.replace(/\/+$/, '')}/${file.split('/').pop()}` : file);

/**
 * Which node each peer ran on, from a run's Grid record (result.json environment.grid).
 * @param {{ peers: Record<string, { node: string }> }} record
 * @returns {Record<string, string>}
 */
export const nodeOfPeers = (record) => Object.fromEntries(Object.entries(record.peers).map(([peer, { node }]) => [peer, node]));
