// A Grid browser's whole memory (pure): what a grid-node's relay may be asked ("the memory of these pids", the pids
// SystemInfo.getProcessInfo gives), which of them it answers for (only its own Selenium node's descendants: it must
// never tell another process's memory), /proc's memory text in kB, the answer checked as hostile input by the
// orchestrator, and a browser's processes summed in MB.

/** Pids per request: a browser has a dozen processes, a node a few browsers. */
export const MAX_MEMORY_PIDS = 256;
/** Linux's PID_MAX_LIMIT: no pid is above it. */
export const MAX_PID = 4_194_304;
/** One process's memory in kB above which an answer is not believed (1 TiB). */
export const MAX_PROCESS_KB = 2 ** 30;
/** Parents walked up from a pid: a browser's renderer is a few levels below java (chromedriver, chrome, zygotes). */
export const MAX_ANCESTORS = 32;

/** @typedef {{ pid: number, rssKb: number, pssKb: number|null }} ProcessMemory  pssKb: null where smaps_rollup is unreadable */

/**
 * The pids of a request, checked: 1 to MAX_MEMORY_PIDS distinct whole numbers in 1..MAX_PID.
 * @param {unknown} pids
 * @returns {number[]}
 */
export function checkPidList(pids) {
  if (!Array.isArray(pids) || pids.length < 1 || pids.length > MAX_MEMORY_PIDS) {
    throw new Error(`processMemory: params.pids must be a list of 1 to ${MAX_MEMORY_PIDS} process ids`);
  }
  for (const pid of pids) {
    if (!Number.isInteger(pid) || pid < 1 || pid > MAX_PID) throw new Error(`processMemory: ${JSON.stringify(pid)?.slice(0, 20)} is not a process id (1..${MAX_PID})`);
  }
  if (new Set(pids).size !== pids.length) throw new Error('processMemory: params.pids names a process twice');
  return /** @type {number[]} */ (pids);
}

/**
 * Which requested pids a node answers for: those whose parent chain reaches its Selenium node's java within
 * MAX_ANCESTORS steps; the rest (another user's processes, the node's own relay, gone ones, a chain that loops or
 * breaks) are left out alike, so the answer tells nothing of them.
 * @param {number[]} requested @param {Map<number, number>} ppidOf  parent by pid, as /proc/<pid>/stat had them
 * @param {number} rootPid
 */
export function pidsUnder(requested, ppidOf, rootPid) {
  /** @param {number} pid */
  const under = (pid) => {
    let at = ppidOf.get(pid);
    for (let step = 0; step < MAX_ANCESTORS && at !== undefined; step++) {
      if (at === rootPid) return true;
      at = ppidOf.get(at);
    }
    return false;
  };
  return requested.filter(under);
}

/**
 * Rss and Pss from /proc/<pid>/smaps_rollup, in kB; null when a field is missing.
 * @param {string} text
 * @returns {{ rssKb: number, pssKb: number }|null}
 */
export function parseSmapsRollup(text) {
  const rss = /^Rss:\s+(\d+)\s+kB$/m.exec(text);
  const pss = /^Pss:\s+(\d+)\s+kB$/m.exec(text);
  return rss && pss ? { rssKb: Number(rss[1]), pssKb: Number(pss[1]) } : null;
}

/** @param {unknown} kb */
const isKb = (kb) => Number.isInteger(kb) && /** @type {number} */ (kb) >= 0 && /** @type {number} */ (kb) <= MAX_PROCESS_KB;

/**
 * A node's answer, checked: a list of requested pids, each once, with whole kB in 0..MAX_PROCESS_KB and Pss (a share
 * of Rss) no more than Rss. Throws naming the field.
 * @param {unknown} reply @param {number[]} requested
 * @returns {ProcessMemory[]}
 */
export function checkMemoryReply(reply, requested) {
  const asked = new Set(requested);
  if (!Array.isArray(reply) || reply.length > requested.length) throw new Error(`processMemory's reply is not a list of at most ${requested.length} processes`);
  const seen = new Set();
  return reply.map((entry, index) => {
    const { pid, rssKb, pssKb } = entry ?? {};
    if (!asked.has(pid) || seen.has(pid)) throw new Error(`processMemory[${index}].pid is not one of the pids asked, once`);
    seen.add(pid);
    if (!isKb(rssKb)) throw new Error(`processMemory[${index}].rssKb is not whole kB in 0..${MAX_PROCESS_KB}`);
    if (pssKb !== null && !(isKb(pssKb) && pssKb <= rssKb)) throw new Error(`processMemory[${index}].pssKb is not null nor whole kB up to its rssKb`);
    return { pid, rssKb, pssKb };
  });
}

/**
 * A browser's memory in MB: its processes' Rss summed (shared pages count once per process, so it overstates) and their
 * Pss summed (shared pages split among their sharers), null unless every process has one; null for no process.
 * @param {ProcessMemory[]} processes
 */
export function browserMemoryMb(processes) {
  if (!processes.length) return null;
  const mb = (/** @type {number} */ kb) => Number((kb / 1024).toFixed(1));
  const pss = processes.every(({ pssKb }) => pssKb !== null);
  return {
    rssMb: mb(processes.reduce((sum, { rssKb }) => sum + rssKb, 0)),
    pssMb: pss ? mb(processes.reduce((sum, { pssKb }) => sum + /** @type {number} */ (pssKb), 0)) : null,
  };
}
