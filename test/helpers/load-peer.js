// The load participants' processes (sfu/load-peer), found by their binary's path in the tool cache
// (load-peer-<hash>/load-peer), for the tests that check none is left after a run.
import { readdirSync, readFileSync } from 'node:fs';

/** The load-peer processes running now. @returns {Array<{ pid: number, cmdline: string }>} */
export function loadPeerProcesses() {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return /webrtc-testbed\/load-peer-[0-9a-f]+\/load-peer /.test(cmdline) ? [{ pid: Number(pid), cmdline }] : [];
    } catch {
      return [];
    }
  });
}
