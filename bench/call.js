#!/usr/bin/env node
// Benchmark: call set-up time (browser launch -> first decoded video frame) and the orchestrator's own CPU share
// while it carries a full-rate call (unconstrained, 720p30: Chromium sends ~2.5 Mbps each way).
// Usage: node bench/call.js [--duration 40] [--video 720p30]. Prints figures; asserts nothing.
import { parseArgs } from 'node:util';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { installProcessHandlers } from '../orchestrator/lib/shutdown.js';
import { runScenario } from '../orchestrator/run/run.js';
import { loadScenario } from '../orchestrator/lib/scenario.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '40' }, video: { type: 'string', default: '720p30' } } });
installProcessHandlers();
const scenario = loadScenario('unconstrained', { durationS: Number(values.duration) });
const out = mkdtempSync(path.join(os.tmpdir(), 'wtb-bench-call-'));

// CPU is measured over the measurement window only (after warm-up), when the call runs at full rate.
let cpuStart = null;
let cpuEnd = null;
const onSample = (sample) => {
  const now = { cpu: process.cpuUsage(), wallMs: performance.now() };
  if (sample.t === scenario.warmupS + 1 && !cpuStart) cpuStart = now;
  if (sample.t === scenario.durationS) cpuEnd = now;
};
const { result } = await runScenario({ scenario, video: values.video, outDir: out, onSample });
rmSync(out, { recursive: true, force: true });

const cpuMs = (cpuEnd.cpu.user + cpuEnd.cpu.system - cpuStart.cpu.user - cpuStart.cpu.system) / 1000;
const sharePct = (100 * cpuMs) / (cpuEnd.wallMs - cpuStart.wallMs);
const { summary } = result;
console.log(`status                         ${result.status}`);
console.log(`video preset                   ${values.video}`);
console.log(`set-up time (launch -> frame)  ${Object.entries(summary.setupMs).map(([peer, ms]) => `${peer} ${ms} ms`).join(', ')}`);
console.log(`video recvKbps median          ${summary.overall['video.recvKbps'].median.toFixed(0)} kbps (each direction)`);
console.log(`orchestrator CPU share         ${sharePct.toFixed(2)} % of one core (${os.cpus().length} cores, ${os.cpus()[0].model})`);
