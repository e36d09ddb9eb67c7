// bench/relay.js part 3: the relay's packets/s per core at saturation, and its added delay at 25, 50 and 90 % of that.
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeLinkParams, UDP_IPV4_OVERHEAD_BYTES } from '../orchestrator/lib/network/link-model.js';
import { startRelayProcess } from '../orchestrator/emulators/relay/client.js';
import { median } from '../orchestrator/lib/stats/statistics.js';
import { cpuSeconds, startLoad } from './relay-load.js';

const PAIRS = 4;
const DELAY_MS = 25;
/**
 * Each uplink is capped at this multiple of its flow's rate: the cap is on, yet the generator's 0.5 ms bursts queue
 * behind it for at most ~0.05 ms, so the delay above DELAY_MS is the relay's own.
 */
const CAP_HEADROOM = 10;
/** Offered packets/s, all flows together, until the relay saturates. */
const RAMP_PPS = [10_000, 20_000, 40_000, 60_000, 80_000, 100_000, 120_000, 140_000, 160_000, 200_000, 240_000, 280_000];
/**
 * The dgram packet path's figures as README recorded them (HEAD f2d3dc3, same bench, noisy shared machine), printed
 * beside each run's: per-core saturation, then added delay p50/p99 in ms at 25, 50 and 90 % of it.
 * @type {Record<number, {perCorePps: number, addedMs: Record<string, [number, number]>|null}>}
 */
const DGRAM_FIGURES = {
  1200: { perCorePps: 77_500, addedMs: { 25: [0.54, 1.38], 50: [0.59, 12.1], 90: [132, 175] } },
  200: { perCorePps: 61_200, addedMs: null },
};
/** The relay is saturated when it uses this share of a core, or forwards less than this share of the offered load. */
const SATURATED_CPU = 0.95;
const SATURATED_DELIVERY = 0.99;

/**
 * One step: a fresh relay, 4 pairs both ways at totalPps, the relay's CPU over the sending window.
 * @param {{payloadBytes: number, totalPps: number, durationMs: number, packetPath: 'auto'|'native'|'dgram', nodeFlags?: string[]}} step
 *   nodeFlags: the relay child's V8 flags (default: the relay's own)
 */
async function measure({ payloadBytes, totalPps, durationMs, packetPath, nodeFlags }) {
  const relay = await startRelayProcess({ seed: 1, packetPath }, { nodeFlags });
  try {
    const flows = [];
    /** @type {Record<string, import('../orchestrator/lib/network/link-model.js').LinkParams>} */
    const links = {};
    /** @type {Record<string, string[]>} */
    const routes = {};
    const flowPps = totalPps / (PAIRS * 2);
    const rateKbps = Math.ceil((CAP_HEADROOM * flowPps * (payloadBytes + UDP_IPV4_OVERHEAD_BYTES) * 8) / 1000);
    for (let peer = 0; peer < PAIRS * 2; peer++) {
      const [self, remote] = [`p${peer}`, `p${peer ^ 1}`];
      flows.push({ from: self, to: remote, mediaBytes: payloadBytes, mediaPps: flowPps });
      links[`${self}.up`] = normalizeLinkParams({ rateKbps, queueMs: 300, oneWayDelayMs: DELAY_MS }, 'bench');
      links[`${self}.down`] = normalizeLinkParams({}, 'bench');
      routes[`${self}->${remote}`] = [`${self}.up`, `${remote}.down`];
    }
    await relay.configure({ links, routes });
    const load = await startLoad(relay, flows);
    try {
      const cpuBefore = cpuSeconds(relay.pid);
      const before = await relay.stats();
      // The drain after the sending window lets the delay line empty, so packets in it are not taken for lost.
      const running = load.run({ durationMs, drainMs: 400 });
      await sleep(durationMs);
      const cpu = cpuSeconds(relay.pid) - cpuBefore;
      const after = await relay.stats();
      const results = await running;
      const wallS = (after.uptimeMs - before.uptimeMs) / 1000;
      const sent = results.reduce((sum, flow) => sum + flow.sent, 0);
      const received = results.reduce((sum, flow) => sum + flow.received, 0);
      const linkDrops = Object.values((await relay.stats()).links).reduce((sum, link) => sum + link.dropsQueue + link.dropsLoss, 0);
      // A flow with nothing received has no delays: the step's delays are the other flows'.
      const delays = results.flatMap(({ delayMsP50, delayMsP99, delayMsMax }) => (
        delayMsP50 === null || delayMsP99 === null || delayMsMax === null ? [] : [{ delayMsP50, delayMsP99, delayMsMax }]));
      return {
        offeredPps: sent / (durationMs / 1000),
        forwardedPps: (after.forwardedPackets - before.forwardedPackets) / wallS,
        cpuShare: cpu / wallS,
        deliveredShare: sent === 0 ? 1 : received / sent,
        unaskedDrops: sent - received - linkDrops,
        // Flows are alike: the worst flow's percentile stands for the step.
        addedMsP50: Math.max(...delays.map((flow) => flow.delayMsP50)) - DELAY_MS,
        addedMsP99: Math.max(...delays.map((flow) => flow.delayMsP99)) - DELAY_MS,
        addedMsMax: Math.max(...delays.map((flow) => flow.delayMsMax)) - DELAY_MS,
        lateness: after.sendLateMs,
        packetPath: after.packetPath,
      };
    } finally {
      await load.close();
    }
  } finally {
    await relay.close();
  }
}

/** @param {Awaited<ReturnType<typeof measure>>} step */
function format(step) {
  const ms = (/** @type {number} */ value) => value.toFixed(2);
  return `offered ${step.offeredPps.toFixed(0).padStart(6)} p/s, forwarded ${step.forwardedPps.toFixed(0).padStart(6)} p/s, `
    + `relay ${(step.cpuShare * 100).toFixed(1).padStart(5)} % of a core (${(step.forwardedPps / step.cpuShare).toFixed(0)} p/s per core), `
    + `added delay p50/p99/max ${ms(step.addedMsP50)}/${ms(step.addedMsP99)}/${ms(step.addedMsMax)} ms, `
    + `lateness p99/max ${step.lateness.p99}/${step.lateness.max} ms, delivered ${(step.deliveredShare * 100).toFixed(2)} % `
    + `(${step.unaskedDrops} not dropped by a link), ${step.packetPath} path`;
}

/**
 * Ramps the offered load until the relay saturates, then measures at 25, 50 and 90 % of the saturation rate, `repeat`
 * times each (a fresh relay per step): on a shared 2-core machine one 3 s step's p99 swings by tenths of a ms, so the
 * median over steps is the figure to compare.
 * @param {{payloadBytes: number, stepMs: number, repeat: number, packetPath: 'auto'|'native'|'dgram', nodeFlags?: string[]}} options
 */
export async function saturation({ payloadBytes, stepMs, repeat, packetPath, nodeFlags }) {
  console.log(`saturation, ${payloadBytes}-byte payloads, ${PAIRS} pairs both ways, ${DELAY_MS} ms delay and a cap (${CAP_HEADROOM} x the flow) on every uplink, packet path ${packetPath}:`);
  let saturatedPps = null;
  for (const totalPps of RAMP_PPS) {
    const step = await measure({ payloadBytes, totalPps, durationMs: stepMs, packetPath, nodeFlags });
    console.log(`  ${format(step)}`);
    // Against what the generator managed to offer: on a busy machine it falls short of totalPps before the relay does.
    if (step.cpuShare >= SATURATED_CPU || step.deliveredShare < SATURATED_DELIVERY || step.forwardedPps < 0.98 * step.offeredPps) {
      saturatedPps = step.forwardedPps / Math.max(step.cpuShare, SATURATED_CPU);
      break;
    }
  }
  if (saturatedPps === null) {
    console.log(`  the relay did not saturate by ${RAMP_PPS.at(-1)} p/s offered; add higher steps`);
    return;
  }
  const before = DGRAM_FIGURES[payloadBytes];
  const perCoreBefore = before ? ` (dgram path before: ${before.perCorePps})` : '';
  console.log(`  saturation: ${saturatedPps.toFixed(0)} packets/s per core of ${payloadBytes}-byte packets${perCoreBefore}`);
  for (const fraction of [0.25, 0.5, 0.9]) {
    const steps = [];
    for (let run = 0; run < repeat; run++) {
      const step = await measure({ payloadBytes, totalPps: fraction * saturatedPps, durationMs: stepMs, packetPath, nodeFlags });
      steps.push(step);
      console.log(`  at ${fraction * 100} %: ${format(step)}`);
    }
    const addedBefore = before?.addedMs?.[fraction * 100];
    const p50 = /** @type {number} */ (median(steps.map((step) => step.addedMsP50)));
    const p99 = steps.map((step) => step.addedMsP99);
    console.log(`  at ${fraction * 100} %, ${repeat} step(s): added delay p50 ${p50.toFixed(2)} ms, p99 median ${/** @type {number} */ (median(p99)).toFixed(2)} ms `
      + `(${Math.min(...p99).toFixed(2)}-${Math.max(...p99).toFixed(2)})${addedBefore ? `; dgram path before: added p50/p99 ${addedBefore.join('/')} ms` : ''}`);
  }
}

/**
 * Only the given load, `repeat` times (fresh relay each): compares relay builds or flags at one point, such as 50 % of
 * a saturation measured before, without the ramp.
 * @param {{payloadBytes: number, totalPps: number, stepMs: number, repeat: number,
 *   packetPath: 'auto'|'native'|'dgram', nodeFlags?: string[]}} options
 */
export async function atLoad({ payloadBytes, totalPps, stepMs, repeat, packetPath, nodeFlags }) {
  console.log(`${totalPps} p/s of ${payloadBytes}-byte payloads, ${repeat} x ${stepMs} ms, packet path ${packetPath}, relay flags [${nodeFlags?.join(' ') ?? 'default'}]:`);
  for (let run = 0; run < repeat; run++) {
    console.log(`  ${format(await measure({ payloadBytes, totalPps, durationMs: stepMs, packetPath, nodeFlags }))}`);
  }
}
