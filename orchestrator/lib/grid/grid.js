// Selenium Grid 4, the pure part: the scenario's `placement`, which node each peer's browser goes to, the new-session
// request, the node stereotype, reading the Grid's /status, and where Puppeteer attaches (se:cdp).
import { isIPv4 } from 'node:net';
import { EnvironmentError, InputError } from '../system/errors.js';
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
    throw new EnvironmentError(`--grid: grid-node ${label}'s stereotype field ${CAP.relay} is not IPv4:port (got ${preview(value)}); restart that node with this project's grid-node`);
  }
  return /** @type {string} */ (value);
}

/** What is read of a Grid's /status at most: far over any test bed, and a bound on the work a hostile hub can ask for. */
export const STATUS_LIMITS = { nodes: 1000, slots: 1024 };
/** Selenium's node ids are UUIDs. */
const NODE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A path on a node (its Chromium, its media folder), which goes into the browser's flags. */
const NODE_PATH = /^\/\P{Cc}{0,1023}$/u;
const BROWSER_VERSION = /^[A-Za-z0-9._-]{1,64}$/;

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A bit of a value for a message, on one line. @param {unknown} value */
const preview = (value) => {
  const text = value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
};

/** @param {string} where  the reply and the node @param {string} field @param {string} must @param {unknown} got */
const badStatus = (where, field, must, got) => new EnvironmentError(`--grid: ${where}: ${field} must be ${must}, `
  + `got ${preview(got)}; restart that grid-node with this project's grid-node, or check that --grid is a Selenium Grid 4 router or hub`);

/**
 * A string field matching `pattern`.
 * @param {unknown} value @param {RegExp} pattern @param {string} where @param {string} field @param {string} must
 */
function textField(value, pattern, where, field, must) {
  if (typeof value !== 'string' || !pattern.test(value)) throw badStatus(where, field, must, value);
  return value;
}

/**
 * The same, or null when absent.
 * @param {unknown} value @param {RegExp} pattern @param {string} where @param {string} field @param {string} must
 */
const optionalText = (value, pattern, where, field, must) => (value === undefined || value === null ? null
  : textField(value, pattern, where, field, must));

/** @param {unknown} value @param {string} where @param {string} field @param {number} max */
function countField(value, where, field, max) {
  if (!Number.isInteger(value) || /** @type {number} */ (value) < 1 || /** @type {number} */ (value) > max) {
    throw badStatus(where, field, `a whole number from 1 to ${max}`, value);
  }
  return /** @type {number} */ (value);
}

/**
 * A browser version as a node or a session states it (it is shown in the report), or null when not stated.
 * @param {unknown} value @param {string} where  the reply and the node
 */
export const browserVersionOf = (value, where) => optionalText(value, BROWSER_VERSION, where, 'browserVersion',
  'a version (letters, digits, ".", "_", "-"; up to 64)');

/** @param {unknown} value @param {string} where */
function nodeUri(value, where) {
  const ok = typeof value === 'string' && value.length <= 2048 && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  if (!ok) throw badStatus(where, 'uri', 'an http:// or https:// URL of at most 2048 characters', value);
  return value;
}

/**
 * One node of /status: none when it is down or has no label of ours (not a grid-node of this project: nothing more of
 * it is read), else its fields, each checked.
 * @param {unknown} node @param {string} where  the Grid's /status: value.nodes[i]
 * @returns {GridNode[]}
 */
function statusNode(node, where) {
  if (!isObject(node)) throw badStatus(where, 'the node', 'an object', node);
  if (node.availability !== 'UP') return [];
  const { slots } = node;
  if (!Array.isArray(slots) || slots.length > STATUS_LIMITS.slots) throw badStatus(where, 'slots', `a list of at most ${STATUS_LIMITS.slots} slots`, slots);
  const stereotypes = slots.map((slot, index) => {
    if (!isObject(slot) || !isObject(slot.stereotype)) throw badStatus(where, `slots[${index}].stereotype`, 'an object', slot);
    return slot.stereotype;
  });
  if (stereotypes[0]?.[CAP.label] === undefined) return [];
  const label = textField(stereotypes[0][CAP.label], LABEL, where, `stereotype ${CAP.label}`,
    'a node label (letters, digits, ".", "_", "-"; up to 63, as grid-node --label)');
  const at = `${where} (grid-node ${label})`;
  const other = stereotypes.findIndex((stereotype) => stereotype[CAP.label] !== label);
  if (other !== -1) throw badStatus(at, `slots[${other}].stereotype.${CAP.label}`, `${JSON.stringify(label)}, as its first slot's`, stereotypes[other][CAP.label]);
  const badSession = slots.findIndex((slot) => slot.session !== null && slot.session !== undefined && !isObject(slot.session));
  if (badSession !== -1) throw badStatus(at, `slots[${badSession}].session`, 'null or an object', slots[badSession].session);
  const [stereotype] = stereotypes;
  const chrome = stereotype['goog:chromeOptions'] ?? {};
  if (!isObject(chrome)) throw badStatus(at, 'goog:chromeOptions', 'an object', chrome);
  const path = 'an absolute path of at most 1024 printable characters';
  return [{
    id: textField(node.id, NODE_ID, at, 'id', 'a node id (letters, digits, ".", "_", ":", "-"; up to 128)'),
    uri: nodeUri(node.uri, at),
    label,
    maxSessions: countField(node.maxSessions, at, 'maxSessions', STATUS_LIMITS.slots),
    freeSlots: slots.filter((slot) => !slot.session).length,
    binary: optionalText(chrome.binary, NODE_PATH, at, 'goog:chromeOptions.binary', path),
    mediaDir: optionalText(stereotype[CAP.mediaDir], NODE_PATH, at, CAP.mediaDir, path),
    cores: stereotype[CAP.cores] === undefined ? null : countField(stereotype[CAP.cores], at, CAP.cores, 65536),
    browserVersion: browserVersionOf(stereotype.browserVersion, at),
    relay: stereotypeRelay(stereotype[CAP.relay], label),
  }];
}

/**
 * The Grid's /status as this project's nodes that are up. The hub may be broken or hostile: every field read is
 * checked, and an error names the node and the field.
 * @param {unknown} status  the JSON body of GET /status
 * @returns {GridNode[]}
 */
export function gridNodes(status) {
  const nodes = isObject(status) && isObject(status.value) ? status.value.nodes : undefined;
  if (!Array.isArray(nodes)) throw new EnvironmentError('--grid: the Grid\'s /status has no value.nodes list; is the URL a Selenium Grid 4 router or hub?');
  if (nodes.length > STATUS_LIMITS.nodes) {
    throw new EnvironmentError(`--grid: the Grid's /status lists ${nodes.length} nodes, over the ${STATUS_LIMITS.nodes} read here; check that --grid is a Selenium Grid 4 router or hub`);
  }
  const ours = nodes.flatMap((node, index) => statusNode(node, `the Grid's /status: value.nodes[${index}]`));
  // Placement is by label: two nodes with one label would take each other's peers.
  /** @type {Map<string, GridNode>} */
  const byLabel = new Map();
  for (const node of ours) {
    const other = byLabel.get(node.label);
    if (other) throw new EnvironmentError(`--grid: two grid-nodes up are labelled ${node.label} (${other.uri.slice(0, 200)} and ${node.uri.slice(0, 200)}); give each its own --label`);
    byLabel.set(node.label, node);
  }
  return ours;
}

/**
 * The id of the node that answers a node's own /status, when it says it is ready; else null.
 * @param {unknown} status  the JSON body of GET <node>/status
 */
export function readyNodeId(status) {
  const value = isObject(status) && isObject(status.value) ? status.value : {};
  const node = isObject(value.node) ? value.node : {};
  return value.ready === true && typeof node.nodeId === 'string' && NODE_ID.test(node.nodeId) ? node.nodeId : null;
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
  const cdp = URL.canParse(cdpUrl) ? new URL(cdpUrl) : null;
  const grid = new URL(gridUrl);
  if (!cdp || !/^wss?:$/.test(cdp.protocol)) {
    throw new EnvironmentError(`--grid: the session's se:cdp ${preview(cdpUrl)} is not a WebSocket URL; check that --grid is a Selenium Grid 4 router or hub`);
  }
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
