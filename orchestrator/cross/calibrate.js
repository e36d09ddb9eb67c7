/**
 * The calibrate command's kernel-flow check on a probe path's tunnels (the relay's): one iperf3 TCP flow (cubic) through
 * its link queues, 2000 kbps with 50 ms one-way delay each way and RFC 8867's 300 ms drop-tail queue (deep enough for TCP).
 * Goodput must be within 10 % of the cap, and the path's RTT (the kernel's minimum RTT sample on the data connection,
 * TCP_INFO) within 2 ms of 100 ms plus the time the sampled packet took to cross the cap: between a tiny one (~0) and
 * a full 1500-byte one (6 ms at 2000 kbps); which one the kernel sampled varies from run to run. iperf3's mean RTT is
 * reported too: it carries the standing queue a loss-based TCP keeps (up to the 300 ms of the queue).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeLinkParams } from '../lib/network/link-model.js';
import { TUN_MTU } from './kernel-flow-plan.js';
import { startKernelFlows } from './kernel-flows.js';

export const TCP_CHECK = { rateKbps: 2000, oneWayDelayMs: 50, queueMs: 300, durationS: 12, warmupS: 3, rateErrorPct: 10, rttErrorMs: 2 };
const LINKS = { forward: 'kernel-calibration.fwd', back: 'kernel-calibration.back' };

/**
 * @param {import('../emulators/contract.js').ProbeTunnels} tunnels  a started probe path's
 * @param {{onResult?: (result: object) => void}} [options]
 * @returns {Promise<object[]>} one calibrate result row
 */
export async function kernelTcpCheck(tunnels, { onResult } = {}) {
  const { rateKbps, oneWayDelayMs, queueMs, durationS, warmupS, rateErrorPct, rttErrorMs } = TCP_CHECK;
  const params = normalizeLinkParams({ rateKbps, oneWayDelayMs, queueMs }, 'kernel TCP calibration');
  await tunnels.configure({ links: { [LINKS.forward]: params, [LINKS.back]: params } });
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'calibrate-kernel-'));
  /** @type {string[]} */
  const errors = [];
  const flows = await startKernelFlows({
    flows: [{ name: 'calibration-tcp', kind: 'tcp', startS: 0, stopS: durationS }],
    tunnels, runDir, runId: `cal-${process.pid}`, routes: { forward: [LINKS.forward], back: [LINKS.back] },
    onError: (error) => errors.push(error.message),
  });
  /** @type {import('../lib/cross/tcp-info.js').TcpInfo[]} */
  let tcpInfo = [];
  try {
    flows.start();
    // TCP_INFO of the data connection while it still exists.
    await sleep((durationS - 1) * 1000);
    tcpInfo = await flows.tcpInfo('calibration-tcp');
    await flows.done();
  } finally {
    await flows.close();
    rmSync(runDir, { recursive: true, force: true });
  }
  const [test] = flows.tests();
  const steady = flows.rows().filter(({ t }) => t > warmupS && t <= durationS);
  const meanKbps = steady.reduce((sum, { rateKbps: kbps }) => sum + kbps, 0) / steady.length;
  const achievedKbps = steady.length ? Number(meanKbps.toFixed(1)) : null;
  const data = tcpInfo.reduce((best, info) => (info.bytesAcked > (best?.bytesAcked ?? -1) ? info : best),
    /** @type {import('../lib/cross/tcp-info.js').TcpInfo|null} */ (null));
  const minRttMs = data?.minRttMs ?? null;
  const expectedRttMs = 2 * oneWayDelayMs;
  const fullPacketMs = (TUN_MTU * 8) / rateKbps;
  const failures = [...errors];
  const errorPct = achievedKbps === null ? Infinity : (100 * Math.abs(achievedKbps - rateKbps)) / rateKbps;
  if (!(errorPct <= rateErrorPct)) failures.push(`goodput ${achievedKbps} kbps off the cap by ${errorPct.toFixed(1)} % (> ${rateErrorPct} %)`);
  if (minRttMs === null || !(minRttMs >= expectedRttMs - rttErrorMs && minRttMs <= expectedRttMs + fullPacketMs + rttErrorMs)) {
    failures.push(`min RTT ${minRttMs} ms, not within ${rttErrorMs} ms of ${expectedRttMs}-${expectedRttMs + fullPacketMs} ms`);
  }
  const result = {
    name: 'iperf3-tcp-kernel',
    configured: params,
    offeredKbps: null,
    achievedKbps,
    rttMs: { min: minRttMs, mean: test?.totals?.meanRttMs ?? null, expected: [expectedRttMs, expectedRttMs + fullPacketMs] },
    retransmits: test?.totals?.retransmits ?? null,
    congestionControl: data?.congestionControl ?? null,
    oneWayDelayMsP50: null, oneWayDelayMsP99: null, delayErrorMsP50: null, delayErrorMsP99: null,
    lossPct: 0, lossPctCi99: [0, 0],
    failures,
  };
  onResult?.(result);
  return [result];
}
