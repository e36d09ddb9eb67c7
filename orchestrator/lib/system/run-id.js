// A run's short id: it names everything the run makes in the kernel (namespaces, TUNs, cgroups, owner files), whichever
// emulator or cross-traffic part makes it, so that `cleanup` can tell one run's leftovers from another's.
import { createHash } from 'node:crypto';

/**
 * 1-8 characters of a-z0-9: short enough for interface names (15 bytes) with a prefix and a suffix. Ids that already
 * fit are kept; others are hashed.
 * @param {string} runId
 * @returns {string}
 */
export function shortRunId(runId) {
  const clean = String(runId).toLowerCase().replace(/[^a-z0-9]/g, '');
  if (clean.length > 0 && clean.length <= 8) return clean;
  return BigInt(`0x${createHash('sha1').update(String(runId)).digest('hex').slice(0, 12)}`).toString(36).slice(0, 8).padStart(8, '0');
}
