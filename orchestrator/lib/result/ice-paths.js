// The network path each connection took (pure): the candidate pair ICE selected, second by second as each page's
// getStats reported it (client-app/stats.js selectedPair), folded per connection, and with a scenario's `turn` the
// check that every second after connection was relayed over the asked transport; with its `peerNetwork` (NATs and
// firewalls, lib/network/nat-profile.js), the check that every second's pair is one the two ends' profiles allow instead.
import { forbiddenBy } from '../network/nat-profile.js';

/** A TURN server's relayed address, as RTCIceCandidateType names it. */
const RELAY_CANDIDATE = 'relay';

/**
 * @typedef {{ localType: string|null, localProtocol: string|null, relayProtocol: string|null, remoteType: string|null,
 *   remoteProtocol: string|null, localAddress?: string|null, remoteAddress?: string|null }} SelectedPair  addresses: where
 *   the page reported them (a handover's new pair differs in them only)
 * @typedef {SelectedPair & { label: string, seconds: number, firstT: number, lastT: number }} PathRun  one path and the
 *   seconds it was selected
 * @typedef {{ peer: string, remote: string, paths: PathRun[] }} ConnectionPaths
 * @typedef {{ check: 'turnPath'|'networkPath', peer: string, remote: string, passed: boolean, detail: string }} PathCheck
 * @typedef {{ connections: ConnectionPaths[], checks: PathCheck[],
 *   profiles?: import('../network/nat-profile.js').PeerNetworks }} PathsSection  profiles: as configured, when any
 */

/**
 * How a path reads in the report: `relay/udp over TLS → relay/udp`, `host/udp → host/udp`.
 * @param {SelectedPair} pair
 */
export function pathLabel(pair) {
  const over = pair.relayProtocol ? ` over ${pair.relayProtocol.toUpperCase()}` : '';
  return `${pair.localType ?? '?'}/${pair.localProtocol ?? '?'}${over} → ${pair.remoteType ?? '?'}/${pair.remoteProtocol ?? '?'}`;
}

/**
 * Each connection's selected paths, in the order they were first selected, and the TURN checks.
 * any: timeline entries as result.json holds them; selectedPair is read field by field
 * @param {Array<Record<string, any>>} timeline
 * @param {{ transport: string }|null} turn  the scenario's
 * @param {import('../network/nat-profile.js').PeerNetworks} [profiles]  the scenario's peerNetwork
 * @param {{ sfu?: boolean }} [call]  sfu: every connection ends at the SFU, which has no profile (not at its `remote`)
 * @returns {PathsSection}
 */
export function pathsSection(timeline, turn, profiles = {}, { sfu = false } = {}) {
  /** @type {Map<string, ConnectionPaths>} */
  const connections = new Map();
  for (const entry of timeline) {
    const pair = selectedPairOf(entry.selectedPair);
    if (!pair) continue;
    const key = `${entry.peer}->${entry.remote}`;
    const connection = connections.get(key) ?? { peer: entry.peer, remote: entry.remote, paths: /** @type {PathRun[]} */ ([]) };
    connections.set(key, connection);
    const label = pathLabel(pair);
    const run = connection.paths.find((p) => p.label === label && p.localAddress === pair.localAddress
      && p.remoteAddress === pair.remoteAddress);
    if (run) Object.assign(run, { seconds: run.seconds + 1, lastT: Math.max(run.lastT, entry.t) });
    else connection.paths.push({ ...pair, label, seconds: 1, firstT: entry.t, lastT: entry.t });
  }
  const list = [...connections.values()];
  if (Object.keys(profiles).length) {
    const checks = sampledConnections(timeline).map(([peer, remote]) => networkCheck(list, peer, remote, profiles, sfu));
    return { connections: list, checks, profiles };
  }
  return { connections: list, checks: turn ? turnChecks(timeline, list, turn.transport) : [] };
}

/** Each connection the pages sampled, [peer, remote]. any: timeline entries, as above @param {Array<Record<string, any>>} timeline */
const sampledConnections = (timeline) => [...new Set(timeline.map((entry) => `${entry.peer}->${entry.remote}`))].map((key) => key.split('->'));

/**
 * `networkPath`: every second's selected pair is one the two ends' profiles allow (nat-profile.js forbiddenBy); a
 * connection that never reported a pair fails.
 * @param {ConnectionPaths[]} connections @param {string} peer @param {string} remote
 * @param {import('../network/nat-profile.js').PeerNetworks} profiles @param {boolean} sfu  the far end is the SFU
 * @returns {PathCheck}
 */
function networkCheck(connections, peer, remote, profiles, sfu) {
  const paths = connections.find((c) => c.peer === peer && c.remote === remote)?.paths ?? [];
  const far = sfu ? undefined : profiles[remote];
  const wrong = paths.map((p) => ({ p, why: forbiddenBy(p, profiles[peer], far) })).filter(({ why }) => why !== null);
  const seconds = paths.reduce((sum, p) => sum + p.seconds, 0);
  const detail = !paths.length ? 'no second with a selected candidate pair'
    : wrong.length ? `${wrong.reduce((sum, { p }) => sum + p.seconds, 0)} of ${seconds} s on a path the profiles forbid: ${wrong.map(({ p, why }) => `${p.label} (${why})`).join('; ')}`
      : `${seconds} of ${seconds} s on a path the profiles allow: ${paths.map((p) => p.label).join('; ')}`;
  return { check: 'networkPath', peer, remote, passed: paths.length > 0 && !wrong.length, detail };
}

/**
 * `turnPath`, per connection the pages sampled: every second with a selected pair was relayed at this end, and this
 * end reached the TURN server over `transport`. A connection that never reported a pair fails (nothing checked is not a pass).
 * any: timeline entries, as above
 * @param {Array<Record<string, any>>} timeline @param {ConnectionPaths[]} connections @param {string} transport
 * @returns {PathCheck[]}
 */
function turnChecks(timeline, connections, transport) {
  return sampledConnections(timeline).map(([peer, remote]) => {
    const paths = connections.find((c) => c.peer === peer && c.remote === remote)?.paths ?? [];
    const wrong = paths.filter((p) => p.localType !== RELAY_CANDIDATE || p.relayProtocol !== transport);
    const seconds = paths.reduce((sum, p) => sum + p.seconds, 0);
    const detail = !paths.length ? 'no second with a selected candidate pair'
      : wrong.length ? `${wrong.reduce((sum, p) => sum + p.seconds, 0)} of ${seconds} s not relayed over ${transport}: ${wrong.map((p) => p.label).join('; ')}`
        : `${seconds} of ${seconds} s relayed over ${transport}`;
    return { check: /** @type {const} */ ('turnPath'), peer, remote, passed: paths.length > 0 && !wrong.length, detail };
  });
}

/** A sample's selectedPair, or null when it has none. @param {unknown} value @returns {SelectedPair|null} */
function selectedPairOf(value) {
  if (typeof value !== 'object' || value === null) return null;
  const record = /** @type {Record<string, unknown>} */ (value);
  /** @param {string} key */
  const text = (key) => (typeof record[key] === 'string' ? /** @type {string} */ (record[key]) : null);
  const addresses = { localAddress: text('localAddress'), remoteAddress: text('remoteAddress') };
  return {
    localType: text('localType'), localProtocol: text('localProtocol'), relayProtocol: text('relayProtocol'),
    remoteType: text('remoteType'), remoteProtocol: text('remoteProtocol'),
    // Only where the page reported them: results from before pages did keep their shape.
    ...(addresses.localAddress !== null || addresses.remoteAddress !== null ? addresses : {}),
  };
}
