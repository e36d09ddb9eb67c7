// Tying a child to this process: started as `setpriv --pdeathsig KILL -- <argv>`, the kernel kills it when the
// orchestrator dies, SIGKILL included. Janus, the Grid's java, the browsers and the kernel flows' tools start so.
import { spawnSync } from 'node:child_process';

/** util-linux before 2.33 has setpriv without --pdeathsig. @param {string} setpriv */
export function supportsPdeathsig(setpriv) {
  return spawnSync(setpriv, ['--help'], { encoding: 'utf8' }).stdout?.includes('--pdeathsig') ?? false;
}
