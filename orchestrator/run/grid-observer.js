// --grid: what the orchestrator reads of the nodes over each browser's DevTools connection, since a node may be another
// host: every page's clock against the orchestrator's at the call's start and end (lib/grid/clock-offset.js), and every
// browser's CPU (SystemInfo.getProcessInfo: CPU time per process), its processes' memory (asked of its node, which
// reads its /proc: node-relay) and its page's JavaScript heap once a second (lib/devices/node-resources.js). A reading
// that fails is a warning, never the run's failure.
import { estimateOffset, nodeClocks, onOrchestratorClock } from '../lib/grid/clock-offset.js';
import { browserCpuPct } from '../lib/devices/node-resources.js';
import { browserMemoryMb } from '../lib/devices/process-memory.js';
import { nodeOfPeers } from '../lib/grid/grid.js';
import { emulatorFlagsWith } from '../emulators/index.js';
import { errorMessage } from '../lib/system/errors.js';

/** Round trips per clock reading: the best of them bounds the offset. */
export const CLOCK_SAMPLES = 15;
const SAMPLE_INTERVAL_MS = 1000;
/** What the pages stamp their frames with (client-app/frame-reader.js), read by Runtime.evaluate. */
const PAGE_CLOCK = 'performance.timeOrigin + performance.now()';
/** A page that does not answer within this long (its node died) is given up on: tear-down must not wait for it. */
const EVALUATE_TIMEOUT_MS = 2000;
/** The orchestrator's clock at sub-millisecond resolution, on the same epoch as Date.now(). */
const nowMs = () => performance.timeOrigin + performance.now();

/**
 * One page's clock offset: CLOCK_SAMPLES round trips of Runtime.evaluate, one after another.
 * @param {{ evaluate: (expression: string) => Promise<unknown> }} page
 * @param {number} [samples]
 */
export async function measurePageClock(page, samples = CLOCK_SAMPLES) {
  const taken = [];
  for (let i = 0; i < samples; i += 1) {
    const sentMs = nowMs();
    const remoteMs = Number(await withTimeout(page.evaluate(PAGE_CLOCK), EVALUATE_TIMEOUT_MS));
    taken.push({ sentMs, remoteMs, receivedMs: nowMs() });
  }
  return estimateOffset(taken);
}

/**
 * @template T
 * @param {Promise<T>} promise @param {number} ms
 * @returns {Promise<T>}
 */
function withTimeout(promise, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms); });
  return /** @type {Promise<T>} */ (Promise.race([promise, late]).finally(() => clearTimeout(timer)));
}

/**
 * Every page's clock offset, one page after another (so their round trips do not queue behind each other).
 * @param {Map<string, { evaluate: (expression: string) => Promise<unknown> }>} pages
 * @param {(message: string) => void} onWarning
 * @returns {Promise<Record<string, import('../lib/grid/clock-offset.js').ClockOffset>>}
 */
export async function measureClocks(pages, onWarning) {
  /** @type {Record<string, import('../lib/grid/clock-offset.js').ClockOffset>} */
  const offsets = {};
  for (const [peer, page] of pages) {
    try {
      offsets[peer] = await measurePageClock(page);
    } catch (error) {
      onWarning(`${peer}: reading its node's clock failed: ${errorMessage(error)}`);
    }
  }
  return offsets;
}

/**
 * @typedef {{ epochMs: number, peer: string, cpuPct: number, rssMb: number|null, pssMb: number|null, jsHeapMb: number|null,
 *   processCount: number }} BrowserSample
 * @typedef {(peer: string, pids: number[]) => Promise<import('../lib/devices/process-memory.js').ProcessMemory[]>} ReadMemory
 */

/** Why a Grid run has only the pages' JavaScript heaps: no emulator on the nodes to read their /proc. */
const noMemoryReader = () => 'no node relay to read the browsers\' memory on their nodes '
  + `(run with ${emulatorFlagsWith((b) => Boolean(b.gridNodes))})`;

/**
 * A browser's memory from its node, or why not.
 * @param {ReadMemory} readMemory @param {string} peer @param {number[]} pids
 * @returns {Promise<{ rssMb: number, pssMb: number|null }>}
 */
async function browserMemory(readMemory, peer, pids) {
  const memory = browserMemoryMb(await readMemory(peer, pids));
  if (!memory) throw new Error(`its node answered for none of its ${pids.length} processes (are they under its Selenium node?)`);
  return memory;
}

/**
 * Samples every page's browser's CPU, its whole memory (from its node, when `readMemory` is given) and the page's heap
 * once a second until stopped; a browser whose reading is still pending is not asked again. The first reading of each
 * browser is only the baseline of the next.
 * @param {Map<string, import('puppeteer').Page>} pages @param {(message: string) => void} onWarning
 * @param {ReadMemory} [readMemory]
 */
export function startBrowserSampler(pages, onWarning, readMemory) {
  /** @type {BrowserSample[]} */
  const rows = [];
  /** @type {Map<string, import('../lib/devices/node-resources.js').CdpProcessReading>} */
  const last = new Map();
  const pending = new Set();
  const warned = new Set();
  /** @type {Record<string, string>} by peer: why its memory could not be read, the first time */
  const memoryErrors = {};
  /** @type {Map<string, Promise<import('puppeteer').CDPSession>>} made at the first reading, whose catch hears its failure */
  const sessions = new Map();
  /** @param {string} peer @param {number[]} pids */
  const memoryOf = async (peer, pids) => {
    if (!readMemory) return { rssMb: null, pssMb: null };
    return browserMemory(readMemory, peer, pids).catch((error) => {
      if (!memoryErrors[peer]) onWarning(`${peer}: reading its browser's memory on its node failed: ${errorMessage(error)}`);
      memoryErrors[peer] ??= String(error.message).slice(0, 300);
      return { rssMb: null, pssMb: null };
    });
  };
  /** @param {string} peer @param {import('puppeteer').Page} page */
  const sample = async (peer, page) => {
    let opening = sessions.get(peer);
    if (!opening) {
      opening = page.browser().target().createCDPSession();
      sessions.set(peer, opening);
    }
    const session = await opening;
    const [{ processInfo }, metrics] = await Promise.all([session.send('SystemInfo.getProcessInfo'), page.metrics()]);
    const reading = { atMs: Date.now(), processes: processInfo.map(({ id, cpuTime }) => ({ id, cpuTime })) };
    const previous = last.get(peer);
    last.set(peer, reading);
    const cpuPct = previous ? browserCpuPct(previous, reading) : null;
    if (cpuPct === null) return;
    const memory = await memoryOf(peer, processInfo.map(({ id }) => id));
    const jsHeapMb = typeof metrics.JSHeapUsedSize === 'number' ? Number((metrics.JSHeapUsedSize / 2 ** 20).toFixed(1)) : null;
    rows.push({ epochMs: reading.atMs, peer, cpuPct, ...memory, jsHeapMb, processCount: processInfo.length });
  };
  const timer = setInterval(() => {
    for (const [peer, page] of pages) {
      if (pending.has(peer)) continue;
      pending.add(peer);
      sample(peer, page).catch((error) => {
        if (!warned.has(peer)) onWarning(`${peer}: reading its browser's CPU over CDP failed: ${errorMessage(error)}`);
        warned.add(peer);
      }).finally(() => pending.delete(peer));
    }
  }, SAMPLE_INTERVAL_MS);
  return {
    rows,
    memory: { unavailable: readMemory ? null : noMemoryReader(), errors: memoryErrors },
    stop: async () => {
      clearInterval(timer);
      await Promise.allSettled([...sessions.values()].map(async (session) => withTimeout((await session).detach(), EVALUATE_TIMEOUT_MS)));
    },
  };
}

/**
 * --grid: the pages' clocks read now and again at stop (before the browsers close), and the browsers sampled in
 * between.
 * @param {Map<string, import('puppeteer').Page>} pages @param {(message: string) => void} onWarning
 * @param {ReadMemory} [readMemory]  the emulator's, when it reads processes on the nodes
 */
export async function observeGrid(pages, onWarning, readMemory) {
  const start = await measureClocks(pages, onWarning);
  const sampler = startBrowserSampler(pages, onWarning, readMemory);
  /** @type {Record<string, import('../lib/grid/clock-offset.js').ClockOffset>} */
  let end = {};
  return {
    clocks: () => ({ start, end }),
    rows: sampler.rows,
    memory: sampler.memory,
    stop: async () => {
      await sampler.stop();
      end = await measureClocks(pages, onWarning);
    },
  };
}

/** @typedef {Awaited<ReturnType<typeof observeGrid>>} GridObserver */

/**
 * What result.json gets of a Grid run's observations: the Grid record with each node's clock, the frame times of the
 * viewers on the orchestrator's clock, and the browsers' rows.
 * @param {import('../lib/result/result.js').GridRecord} record @param {GridObserver|undefined} observer
 */
export function gridObservations(record, observer) {
  const nodeOfPeer = nodeOfPeers(record);
  const { start, end } = observer?.clocks() ?? { start: {}, end: {} };
  const clocks = nodeClocks(nodeOfPeer, start, end);
  return {
    record: { ...record, clocks },
    onOrchestratorClock: (/** @type {import('../lib/viewer/viewer.js').FrameBatch[]} */ batches) => onOrchestratorClock(
      batches, nodeOfPeer, clocks,
    ),
    browsers: { rows: observer?.rows ?? [], unavailable: observer ? null : 'not sampled', memory: observer?.memory ?? { unavailable: 'not sampled', errors: {} } },
  };
}

/** A warning event of the run's recorder, for what the observer could not read. @param {import('./recorder.js').Recorder} recorder */
export const gridWarning = (recorder) => (/** @type {string} */ message) => recorder.event({ type: 'warning', source: 'grid', message });
