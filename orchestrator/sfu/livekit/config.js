// livekit-server's configuration for one run, as JSON (a subset of YAML, which it reads): its HTTP/WebSocket API on
// one address, its media on one UDP port (and, when the run asks, ICE-TCP on one TCP port) of one address the emulator
// steers, its API key and secret, rooms created by the harness only.

/**
 * @param {object} options
 * @param {string} options.address      where its API listens (loopback, or the namespace's address)
 * @param {number} options.httpPort
 * @param {string} options.iceAddress   the one address its ICE candidates carry
 * @param {number} options.udpPort      every peer's media on this one port (LiveKit's UDP mux)
 * @param {number|null} options.tcpPort  ICE-TCP: passive TCP candidates on this port (its TCP mux); null, none
 * @param {string} options.apiKey
 * @param {string} options.apiSecret
 * @param {string} [options.logLevel]
 * @returns {string}
 */
export function livekitConfig({ address, httpPort, iceAddress, udpPort, tcpPort, apiKey, apiSecret, logLevel = 'info' }) {
  return `${JSON.stringify({
    port: httpPort,
    bind_addresses: [address],
    rtc: {
      udp_port: udpPort,
      // 0 turns ICE-TCP off: left out, livekit-server would listen on its default 7881.
      tcp_port: tcpPort ?? 0,
      // No STUN towards the Internet and no other interface: its candidates carry iceAddress only.
      use_external_ip: false,
      node_ip: iceAddress,
      ips: { includes: [`${iceAddress}/32`] },
      enable_loopback_candidate: iceAddress.startsWith('127.'),
    },
    keys: { [apiKey]: apiSecret },
    room: { auto_create: false, empty_timeout: 300 },
    logging: { level: logLevel, json: false },
  }, null, 2)}\n`;
}
