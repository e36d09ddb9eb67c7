// Relay benchmark: a 16-party SFU call's traffic through one relay. The SFU node sends each peer the other 15
// peers' streams (240 streams of 200 packets/s, 48 000 packets/s) with their sender reports; each peer sends one
// stream up with the feedback for the 15 it receives. Every link has a delay and a cap; the odd peers' downlinks
// are capped below what they are offered. Prints per link the delay above the configured one (median, p99) where the
// cap leaves no queue, and the rate error: against the offered rate, or against the cap where it binds.
// Usage: node bench/relay-sfu.js [--seconds 10]
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeLinkParams, UDP_IPV4_OVERHEAD_BYTES } from '../orchestrator/lib/network/link-model.js';
import { startRelayProcess } from '../orchestrator/emulators/relay/client.js';
import { cpuSeconds, startLoad } from './relay-load.js';

const PEERS = 16;
const STREAM_PPS = 200;
const MEDIA_BYTES = 1150;
const SR_BYTES = 80;
const SR_PPS_PER_STREAM = 1;
const FEEDBACK_BYTES = 100;
const FEEDBACK_PPS_PER_STREAM = 10;
const UP = { rateKbps: 2500, queueMs: 100, oneWayDelayMs: 25 };
const DOWN_DELAY_MS = 20;
const DOWN_OPEN_KBPS = 40_000;
const DOWN_BINDING_KBPS = 20_000;
const WARMUP_MS = 1000;

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' } } });
const durationMs = Number(values.seconds) * 1000;
const wireKbps = (/** @type {number} */ bytes, /** @type {number} */ pps) => ((bytes + UDP_IPV4_OVERHEAD_BYTES) * 8 * pps) / 1000;

const peers = Array.from({ length: PEERS }, (_, i) => `p${i}`);
/** @type {Record<string, import('../orchestrator/lib/network/link-model.js').LinkParams>} */
const links = { 'sfu.up': normalizeLinkParams({}, 'bench'), 'sfu.down': normalizeLinkParams({}, 'bench') };
/** @type {Record<string, string[]>} */
const routes = {};
/** @type {(import('./relay-load.js').FlowSpec & {link: string, delayMs: number, expectedKbps: number, capBinds: boolean})[]} */
const flows = [];
for (const [i, peer] of peers.entries()) {
  const downKbps = i % 2 === 0 ? DOWN_OPEN_KBPS : DOWN_BINDING_KBPS;
  links[`${peer}.up`] = normalizeLinkParams(UP, 'bench');
  links[`${peer}.down`] = normalizeLinkParams({ rateKbps: downKbps, queueMs: 100, oneWayDelayMs: DOWN_DELAY_MS }, 'bench');
  routes[`${peer}->sfu`] = [`${peer}.up`, 'sfu.down'];
  routes[`sfu->${peer}`] = ['sfu.up', `${peer}.down`];
  const streams = PEERS - 1;
  const down = { mediaBytes: MEDIA_BYTES, mediaPps: streams * STREAM_PPS, rtcpBytes: SR_BYTES, rtcpPps: streams * SR_PPS_PER_STREAM };
  const up = { mediaBytes: MEDIA_BYTES, mediaPps: STREAM_PPS, rtcpBytes: FEEDBACK_BYTES, rtcpPps: streams * FEEDBACK_PPS_PER_STREAM };
  for (const [link, spec, from, to, capKbps, delayMs] of /** @type {const} */ ([
    [`${peer}.down`, down, 'sfu', peer, downKbps, DOWN_DELAY_MS],
    [`${peer}.up`, up, peer, 'sfu', UP.rateKbps, UP.oneWayDelayMs],
  ])) {
    const offeredKbps = wireKbps(spec.mediaBytes, spec.mediaPps) + wireKbps(spec.rtcpBytes, spec.rtcpPps);
    flows.push({ ...spec, from, to, link, delayMs, expectedKbps: Math.min(offeredKbps, capKbps), capBinds: offeredKbps > capKbps });
  }
}

const relay = await startRelayProcess({ seed: 1 });
try {
  await relay.configure({ links, routes });
  const load = await startLoad(relay, flows);
  try {
    const cpuBefore = cpuSeconds(relay.pid);
    const before = await relay.stats();
    const running = load.run({ durationMs, warmupMs: WARMUP_MS, drainMs: 400 });
    await sleep(durationMs);
    const cpu = cpuSeconds(relay.pid) - cpuBefore;
    const after = await relay.stats();
    const results = await running;
    const wallS = (after.uptimeMs - before.uptimeMs) / 1000;
    const offered = flows.reduce((sum, flow) => sum + flow.mediaPps + (flow.rtcpPps ?? 0), 0);
    console.log(`16-party SFU through one relay, ${durationMs / 1000} s: ${offered} packets/s offered, `
      + `${((after.forwardedPackets - before.forwardedPackets) / wallS).toFixed(0)} forwarded; relay ${((cpu / wallS) * 100).toFixed(1)} % of a core, `
      + `lateness p50/p99/max ${after.sendLateMs.p50}/${after.sendLateMs.p99}/${after.sendLateMs.max} ms (priority ${after.priority})`);
    console.log('link       configured            delay above configured p50/p99   rate error   lost');
    const errors = [];
    for (const [index, flow] of flows.entries()) {
      const result = results[index];
      const rateErrorPct = (100 * (result.receivedKbps - flow.expectedKbps)) / flow.expectedKbps;
      const above = (/** @type {number|null} */ delayMs) => (delayMs === null ? 'none arrived' : (delayMs - flow.delayMs).toFixed(2));
      const delay = flow.capBinds ? 'queue (cap binds)' : `${above(result.delayMsP50)} / ${above(result.delayMsP99)} ms`;
      const { rateKbps } = links[flow.link];
      const configured = `${flow.delayMs} ms, ${rateKbps === null ? 'no cap' : `${rateKbps / 1000} Mbps`}`;
      const lostPct = (100 * (result.sent - result.received)) / result.sent;
      console.log(`${flow.link.padEnd(10)} ${configured.padEnd(21)} ${delay.padEnd(32)} ${rateErrorPct.toFixed(2).padStart(6)} %   ${lostPct.toFixed(2)} %${flow.capBinds ? ' (cap)' : ''}`);
      errors.push({ flow, result, rateErrorPct });
    }
    const open = errors.filter(({ flow }) => !flow.capBinds);
    const worst = (/** @type {number[]} */ values) => Math.max(...values.map(Math.abs)).toFixed(2);
    console.log(`worst: delay above configured p99 ${worst(open.flatMap(({ flow, result }) => (result.delayMsP99 === null ? [] : [result.delayMsP99 - flow.delayMs])))} ms, `
      + `rate error ${worst(errors.filter(({ flow }) => flow.capBinds).map(({ rateErrorPct }) => rateErrorPct))} % (cap binding) / ${worst(open.map(({ rateErrorPct }) => rateErrorPct))} % (open)`);
  } finally {
    await load.close();
  }
} finally {
  await relay.close();
}
