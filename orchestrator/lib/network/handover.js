// A schedule entry that moves a peer to a new network mid-call, as a phone leaving Wi-Fi for cellular: the peer gets a
// new address and its old one's path dies (the emulator's `handover`, emulators/contract.js). Pure: no I/O.
// docs/scenario-format.md "Handovers".
import { InputError } from '../system/errors.js';
import { describeValue, expectObject } from '../input/validate.js';
import { entryAt, roundS } from './schedule-entries.js';

/** The fields of a handover entry of network.schedule. */
const HANDOVER_FIELDS = ['at', 'handover'];

/** @typedef {{ atS: number, peer: string, cause: string, field: string }} Handover  one move, at a scaled time; field: its entry */

/**
 * Whether a schedule entry is a handover (it has a `handover` field; the rest of it is checked by compileHandover).
 * @param {unknown} entry
 */
export const isHandoverEntry = (entry) => typeof entry === 'object' && entry !== null && Object.hasOwn(entry, 'handover');

/**
 * One handover entry, checked. A handover at 0 would move a peer before it has a path to lose.
 * @param {unknown} raw @param {number} index
 * @param {{ file: string, peers: number, topology: string, timeScale: number, nominalDurationS: number }} context
 * @returns {Handover}
 */
export function compileHandover(raw, index, { file, peers, topology, timeScale, nominalDurationS }) {
  const where = `${file}: network.schedule[${index}]`;
  const entry = expectObject(raw, where, HANDOVER_FIELDS);
  const at = entryAt(entry, where, nominalDurationS, { above: 0 });
  const names = Array.from({ length: peers }, (_, i) => `p${i}`);
  if (typeof entry.handover !== 'string' || !names.includes(entry.handover)) {
    throw new InputError(`${where}.handover: must name the peer that changes network, one of ${names.join(', ')}, got ${describeValue(entry.handover)}`);
  }
  // The pages restart ICE on their own connections; a page's connection to an SFU is the SFU's to restart.
  if (topology !== 'mesh') {
    throw new InputError(`${where}.handover: a handover needs topology mesh (the pages restart ICE with each other), got ${topology}; remove it or use a mesh call`);
  }
  return { atS: roundS(at * timeScale), peer: entry.handover, cause: `network.schedule[${index}] handover`, field: `network.schedule[${index}].handover` };
}

/**
 * Refuses a handover of a peer behind a NAT or firewall profile: its rules are written for the address it leaves.
 * @param {Handover[]} handovers @param {Record<string, unknown>} peerNetwork  the scenario's, validated
 * @param {string} file
 */
export function rejectProfiledHandovers(handovers, peerNetwork, file) {
  const moved = handovers.find((handover) => Object.hasOwn(peerNetwork, handover.peer));
  if (moved) {
    throw new InputError(`${file}: ${moved.field}: ${moved.peer} has a peerNetwork profile, whose NAT and firewall rules name the address it would leave; move another peer or remove peerNetwork.${moved.peer}`);
  }
}
