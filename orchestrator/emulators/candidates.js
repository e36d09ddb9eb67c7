// ICE candidate strings (RFC 8839 §5.1): "candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> …"
// (pure), and the host address that candidates which cannot be on loopback (Janus's, Firefox's) carry.
import os from 'node:os';

/** @param {string} candidate @returns {{ transport: string, address: string, port: number, type: string } | null} */
export function parseCandidate(candidate) {
  const parts = String(candidate).replace(/^a=/, '').split(' ');
  if (parts.length < 8 || !parts[0].startsWith('candidate:') || parts[6] !== 'typ') return null;
  return { transport: parts[2].toLowerCase(), address: parts[4], port: Number(parts[5]), type: parts[7] };
}

/** The same candidate with another address and port. @param {string} candidate @param {string} address @param {number} port */
export function withAddress(candidate, address, port) {
  const parts = String(candidate).split(' ');
  parts[4] = address;
  parts[5] = String(port);
  return parts.join(' ');
}

/** The first IPv4 address of an interface that is up and not loopback, or null. */
export function firstIpv4Address() {
  return Object.values(os.networkInterfaces()).flat().find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address ?? null;
}
