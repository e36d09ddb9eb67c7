// The page's ICE servers: none (host candidates only, which the emulator steers), or the run's TURN server when its URL
// names one (orchestrator/run/turn-server.js): its URL in the query's `turn`, its credential `<username>.<password>`
// third in the fragment. Relay candidates only then, so the call takes the asked path or does not connect; unless the
// query names a STUN server (`stun`: the peers sit behind NATs or firewalls), when ICE takes whichever path they leave.

/**
 * @param {URLSearchParams} params  the page's query
 * @param {string|undefined} turnCredential  from the fragment
 * @returns {RTCConfiguration}
 */
export function iceConfig(params, turnCredential) {
  const urls = params.get('turn');
  const stun = params.get('stun');
  /** @type {RTCIceServer[]} */
  const servers = stun === null ? [] : [{ urls: stun }];
  if (urls === null) return { iceServers: servers };
  const [username, credential] = turnCredential?.split('.') ?? [];
  if (!username || !credential) throw new Error('the page\'s URL names a TURN server but its fragment lacks the credential; open the page through the orchestrator');
  return { iceServers: [...servers, { urls, username, credential }], iceTransportPolicy: stun === null ? 'relay' : 'all' };
}
