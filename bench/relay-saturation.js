// bench/relay.js part 3: the relay's packets/s per core at saturation, and its added delay at 25, 50 and 90 % of that.
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeLinkParams, UDP_IPV4_OVERHEAD_BYTES } from '../orchestrator/lib/network/link-model.js';
import { startRelayProcess } from '../orchestrator/emulators/relay/client.js';
import { cpuSeconds, startLoad } from './relay-load.js';

const PAIRS = 4;
const DELAY_MS = 25;
/**
 * Each uplink is capped at this multiple of its flow's rate: the cap is on, yet the generator's 0.5 ms bursts queue
 * behind it for at most ~0.05 ms, so the delay above DELAY_MS is the relay's own.
 */
const CAP_HEADROOM = 10;
/** Offered packets/s, all flows together, until the relay saturates. */
const RAMP_PPS = [10_000, 20_000, 40_000, 60_000, 80_000, 100_000, 120_000, 140_000, 160_000, 200_000];
/** The relay is saturated when it uses this share of a core, or forwards less than this share of the offered load. */
const SATURATED_CPU = 0.95;
const SATURATED_DELIVERY = 0.99;

/**
 * One step: a fresh relay, 4 pairs both ways at totalPps, the relay's CPU over the sending window.
 * @param {{payloadBytes: number, totalPps: number, durationMs: number}} step
 */
async function measure({ payloadBytes, totalPps, durationMs }) {
  const relay = await startRelayProcess({ seed: 1 });
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
      const delays = results.filter((flow) => flow.delayMsP50 !== null);
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
  const ms = (value) => value.toFixed(2);
  return `offered ${step.offeredPps.toFixed(0).padStart(6)} p/s, forwarded ${step.forwardedPps.toFixed(0).padStart(6)} p/s, `
    + `relay ${(step.cpuShare * 100).toFixed(1).padStart(5)} % of a core (${(step.forwardedPps / step.cpuShare).toFixed(0)} p/s per core), `
    + `added delay p50/p99/max ${ms(step.addedMsP50)}/${ms(step.addedMsP99)}/${ms(step.addedMsMax)} ms, `
    + `lateness p99/max ${step.lateness.p99}/${step.lateness.max} ms, delivered ${(step.deliveredShare * 100).toFixed(2)} % `
    + `(${step.unaskedDrops} not dropped by a link)`;
}

/**
 * Ramps the offered load until the relay saturates, then measures at 25, 50 and 90 % of the saturation rate.
 * @param {{payloadBytes: number, stepMs: number}} options
 */
export async function saturation({ payloadBytes, stepMs }) {
  console.log(`saturation, ${payloadBytes}-byte payloads, ${PAIRS} pairs both ways, ${DELAY_MS} ms delay and a cap (${CAP_HEADROOM} x the flow) on every uplink:`);
  let saturatedPps = null;
  for (const totalPps of RAMP_PPS) {
    const step = await measure({ payloadBytes, totalPps, durationMs: stepMs });
    console.log(`  ${format(step)}`);
    if (step.cpuShare >= SATURATED_CPU || step.deliveredShare < SATURATED_DELIVERY || step.forwardedPps < 0.98 * totalPps) {
      saturatedPps = step.forwardedPps / Math.max(step.cpuShare, SATURATED_CPU);
      break;
    }
  }
  if (saturatedPps === null) {
    console.log(`  the relay did not saturate by ${RAMP_PPS.at(-1)} p/s offered; add higher steps`);
    return;
  }
  console.log(`  saturation: ${saturatedPps.toFixed(0)} packets/s per core of ${payloadBytes}-byte packets`);
  for (const fraction of [0.25, 0.5, 0.9]) {
    const step = await measure({ payloadBytes, totalPps: fraction * saturatedPps, durationMs: stepMs });
    console.log(`  at ${fraction * 100} %: ${format(step)}`);
  }
}
