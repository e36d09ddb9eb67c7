// Which node relay shapes which link (pure). A route "pA->pB" crossing machines is cut in two: everything before pB's
// downlink (pA's uplink, and a bottleneck between them) on pA's node, pB's downlink on pB's node, so each peer's
// links are shaped on the machine its browser runs on and a bottleneck shared by one node's peers stays whole there.
// A route between peers of one node stays whole on it. Janus runs on the orchestrator's host, on no node: a route
// with the SFU on one end (the peer's uplink to it, its downlink from it) stays whole on the peer's node, whose relay
// sits between the peer and Janus.
import { SFU_NODE } from '../../lib/network/topology.js';

/**
 * @typedef {{ links: string[], routes: Record<string, string[]> }} NodeShare  one node relay's links and routes
 */

/**
 * The peer on whose node `end`'s side of the pair (end, other) is relayed: end itself, or the peer Janus talks to.
 * @param {string} end @param {string} other  p<i> or SFU_NODE
 */
export const relayPeer = (end, other) => (end === SFU_NODE ? other : end);

/**
 * @param {Record<string, string[]>} routes  compiled.routes, "pA->pB" -> links in order
 * @param {(peer: string) => string} nodeOf  the node label of each peer's browser
 * @returns {Record<string, NodeShare>} by node label
 */
export function splitRoutes(routes, nodeOf) {
  /** @type {Record<string, NodeShare>} */
  const shares = {};
  const add = (/** @type {string} */ label, /** @type {string} */ key, /** @type {string[]} */ links) => {
    // hasOwn: a node may be labelled `constructor` or `toString`, which a plain object already has.
    if (!Object.hasOwn(shares, label)) shares[label] = { links: [], routes: {} };
    shares[label].routes[key] = links;
    for (const link of links) if (!shares[label].links.includes(link)) shares[label].links.push(link);
  };
  for (const [key, links] of Object.entries(routes)) {
    const [from, to] = key.split('->');
    const [fromNode, toNode] = [nodeOf(relayPeer(from, to)), nodeOf(relayPeer(to, from))];
    if (fromNode === toNode) {
      add(fromNode, key, links);
      continue;
    }
    const receiving = links.at(-1) === `${to}.down` ? links.slice(-1) : [];
    add(fromNode, key, links.slice(0, links.length - receiving.length));
    add(toNode, key, receiving);
  }
  return shares;
}
