/**
 * Per-link ground truth from the kernel's counters: the leaf bfifo (packets out, queue drops, backlog) and
 * the loss stage (netem's drops, or the link's named nft counter). Deltas since the previous read.
 */

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
 * Reads every stage's counters and returns one row per link.
 * @param {{run: import('../command-runner.js').RunCommand, plan: import('./topology.js').TopologyPlan, netem: boolean,
 *   last: Map<string, Counters>, epochMs: number}} options  last: previous readings, updated in place
 */
export async function linkTruth({ run, plan, netem, last, epochMs }) {
  const quiet = { allowFailure: true, record: false };
  /** @param {import('../command-runner.js').CommandResult} result */
  const parse = (result) => {
    try { return result.ok ? JSON.parse(result.stdout) : null; } catch { return null; }
  };
  // any: tc's JSON output, whose fields depend on the qdisc
  /** @type {Map<string, any>} */
  const qdiscs = new Map();
  for (const device of new Set(plan.stages.map((stage) => stage.device))) {
    const list = parse(await run(['tc', '-n', plan.routerNetns, '-s', '-j', 'qdisc', 'show', 'dev', device], quiet)) ?? [];
    for (const qdisc of list) qdiscs.set(`${device} ${qdisc.handle}`, qdisc);
  }
  /** @type {Map<string, {packets: number, bytes: number}>} */
  const nftCounters = new Map();
  if (!netem) {
    const listing = parse(await run(['ip', 'netns', 'exec', plan.routerNetns, 'nft', '-j', 'list', 'counters', 'table', 'inet', plan.nftTable], quiet));
    for (const item of listing?.nftables ?? []) if (item.counter) nftCounters.set(item.counter.name, item.counter);
  }
  const rows = [];
  for (const stage of plan.stages) {
    const fifo = qdiscs.get(`${stage.device} ${stage.fifoHandle}`);
    if (!fifo) continue;
    const netemQdisc = netem ? qdiscs.get(`${stage.device} ${stage.netemHandle}`) : null;
    const counter = nftCounters.get(stage.nftChain) ?? { packets: 0, bytes: 0 };
    /** @type {Counters} */
    const now = {
      packetsOut: fifo.packets,
      bytesOut: fifo.bytes,
      dropsQueue: fifo.drops,
      // netem counts its child's drops among its own
      dropsLoss: netemQdisc ? netemQdisc.drops - fifo.drops : counter.packets,
      lossBytes: netemQdisc ? 0 : counter.bytes,
      backlogPackets: (netemQdisc ?? fifo).qlen,
      backlogBytes: (netemQdisc ?? fifo).backlog,
    };
    rows.push({ epochMs, link: stage.link, ...truthRow(last.get(stage.link) ?? ZERO, now) });
    last.set(stage.link, now);
  }
  return rows;
}
