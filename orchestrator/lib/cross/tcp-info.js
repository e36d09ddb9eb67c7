/**
 * TCP_INFO of a namespace's connections as `ss -tinH` prints it. Pure: no I/O.
 */

/**
 * @typedef {object} TcpInfo
 * @property {string} local  address:port
 * @property {string} peer
 * @property {string|null} congestionControl
 * @property {number|null} rttMs  smoothed RTT
 * @property {number|null} minRttMs  the kernel's minimum RTT sample (tcpi_min_rtt): the path without standing queue
 * @property {number} bytesAcked
 */

/**
 * @param {string} text  `ss -tinH` output: a socket line, then its indented info line
 * @returns {TcpInfo[]}
 */
export function parseSsTcpInfo(text) {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  /** @type {TcpInfo[]} */
  const sockets = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^\s/.test(lines[i])) continue;
    const [, , , local, peer] = lines[i].trim().split(/\s+/);
    const info = /^\s/.test(lines[i + 1] ?? '') ? lines[i + 1] : '';
    const number = (/** @type {RegExp} */ pattern) => {
      const match = pattern.exec(info);
      return match ? Number(match[1]) : null;
    };
    sockets.push({
      local,
      peer,
      congestionControl: /^\s*([a-z0-9_]+)\s/.exec(info)?.[1] ?? null,
      rttMs: number(/\brtt:([\d.]+)\//),
      minRttMs: number(/\bminrtt:([\d.]+)/),
      bytesAcked: number(/\bbytes_acked:(\d+)/) ?? 0,
    });
  }
  return sockets;
}
