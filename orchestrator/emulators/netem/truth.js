/**
 * Per-link ground truth from the kernel's counters: the leaf bfifo (packets out, queue drops, backlog) and
 * the loss stage (netem's drops, or the link's named nft counter). Deltas since the previous read.
 */
import { fieldOf } from '../../lib/input/validate.js';

/**
 * @typedef {object} Counters  cumulative since set-up (backlog: current)
 * @property {number} packetsOut @property {number} bytesOut @property {number} dropsQueue
 * @property {number} dropsLoss @property {number} lossBytes @property {number} backlogPackets @property {number} backlogBytes
 */

const ZERO = { packetsOut: 0, bytesOut: 0, dropsQueue: 0, dropsLoss: 0, lossBytes: 0, backlogPackets: 0, backlogBytes: 0 };

/**
 * One truth row from two readings. Loss acts before the link's queue (netem's, or the nft forward hook ahead
 * of the stage). bfifo does not count the bytes of queue drops; they are estimated at the interval's mean
 * packet size.
 * @param {Counters} before @param {Counters} now
 */
export function truthRow(before, now) {
  /** @param {keyof Counters} field */
  const d = (field) => now[field] - before[field];
  const meanPacketBytes = d('packetsOut') > 0 ? d('bytesOut') / d('packetsOut') : 0;
  return {
    packetsIn: d('packetsOut') + d('dropsQueue') + d('backlogPackets') + d('dropsLoss'),
    bytesIn: d('bytesOut') + d('backlogBytes') + Math.round(d('dropsQueue') * meanPacketBytes) + d('lossBytes'),
    packetsOut: d('packetsOut'),
    bytesOut: d('bytesOut'),
    dropsQueue: d('dropsQueue'),
    dropsLoss: d('dropsLoss'),
    // The kernel keeps no per-packet sojourn times; the relay backend measures these.
    queueDelayMsP50: null, queueDelayMsP95: null, oneWayDelayMsP50: null, oneWayDelayMsP95: null,
  };
}

/**
 * A counter of tc's or nft's JSON output, whose fields vary by qdisc and version: NaN where it has none, which makes
 * the rows' deltas NaN (null in result.json) as a missing counter always did.
 * @param {unknown} counters @param {string} field
 */
function count(counters, field) {
  const value = fieldOf(counters, field);
  return typeof value === 'number' ? value : NaN;
}

/**
 * Reads every stage's counters and returns one row per link.
 * @param {{run: import('../command-runner.js').RunCommand, plan: import('./topology.js').TopologyPlan, netem: boolean,
 *   last: Map<string, Counters>, epochMs: number}} options  last: previous readings, updated in place
 */
export async function linkTruth({ run, plan, netem, last, epochMs }) {
  const quiet = { allowFailure: true, record: false };
  /** @param {import('../command-runner.js').CommandResult} result @returns {unknown} */
  const parse = (result) => {
    try { return result.ok ? JSON.parse(result.stdout) : null; } catch { return null; }
  };
  /** @type {Map<string, unknown>} tc's qdiscs by device and handle */
  const qdiscs = new Map();
  for (const device of new Set(plan.stages.map((stage) => stage.device))) {
    const list = parse(await run(['tc', '-n', plan.routerNetns, '-s', '-j', 'qdisc', 'show', 'dev', device], quiet));
    for (const qdisc of Array.isArray(list) ? list : []) qdiscs.set(`${device} ${fieldOf(qdisc, 'handle')}`, qdisc);
  }
  /** @type {Map<string, {packets: number, bytes: number}>} */
  const nftCounters = new Map();
  if (!netem) {
    const listing = parse(await run(['ip', 'netns', 'exec', plan.routerNetns, 'nft', '-j', 'list', 'counters', 'table', 'inet', plan.nftTable], quiet));
    const items = fieldOf(listing, 'nftables');
    for (const item of Array.isArray(items) ? items : []) {
      const counter = fieldOf(item, 'counter');
      const name = fieldOf(counter, 'name');
      if (counter && typeof name === 'string') nftCounters.set(name, { packets: count(counter, 'packets'), bytes: count(counter, 'bytes') });
    }
  }
  const rows = [];
  for (const stage of plan.stages) {
    const fifo = qdiscs.get(`${stage.device} ${stage.fifoHandle}`);
    if (!fifo) continue;
    const netemQdisc = netem ? qdiscs.get(`${stage.device} ${stage.netemHandle}`) : null;
    const counter = nftCounters.get(stage.nftChain) ?? { packets: 0, bytes: 0 };
    /** @type {Counters} */
    const now = {
      packetsOut: count(fifo, 'packets'),
      bytesOut: count(fifo, 'bytes'),
      dropsQueue: count(fifo, 'drops'),
      // netem counts its child's drops among its own
      dropsLoss: netemQdisc ? count(netemQdisc, 'drops') - count(fifo, 'drops') : counter.packets,
      lossBytes: netemQdisc ? 0 : counter.bytes,
      backlogPackets: count(netemQdisc ?? fifo, 'qlen'),
      backlogBytes: count(netemQdisc ?? fifo, 'backlog'),
    };
    rows.push({ epochMs, link: stage.link, ...truthRow(last.get(stage.link) ?? ZERO, now) });
    last.set(stage.link, now);
  }
  return rows;
}
