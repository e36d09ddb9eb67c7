/**
 * A capture file read from disk (the I/O edge of pcap.js): a regular file of at most MAX_PCAP_BYTES, then parsed.
 */
import { readInputBytes } from '../input/input-file.js';
import { MAX_PCAP_BYTES, parsePcap } from './pcap.js';

/** @param {string} file @returns {import('./pcap.js').PcapCapture} */
export function readPcapFile(file) {
  const bytes = readInputBytes(file, {
    shown: file,
    what: 'capture file',
    maxBytes: MAX_PCAP_BYTES,
    nextStep: 'check the path that `tcpdump -w` was given',
    limitsDoc: 'MAX_PCAP_BYTES in orchestrator/lib/network/pcap.js',
  });
  return parsePcap(bytes, file);
}
