// What the viewer saw, with real browsers through the relay (360p30, compressed runs): glass-to-glass delay against
// the configured delay, freezes under loss, picture quality (PSNR, SSIM, VMAF) under loss and a rate cap. Four short
// runs, about 2 minutes (glass-to-glass on delay ramps is checked on e2e-schedules' latency-variation run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describe as describeValues } from '../orchestrator/lib/stats/statistics.js';
import { runScenarioCli } from './helpers/cli.js';
import { STREAMS, oneWayAt, windowOf } from './helpers/viewer-delay.js';

/**
 * Glass-to-glass delay minus (one-way delay + the receiver's jitter-buffer delay) per second, means of the second both:
 * what the rest of the path adds (encoding, pacing, packetisation, decoding, rendering) and the one-display-refresh
 * (16.7 ms) resolution of the display times. Measured here at 360p30 (latency-100): a median of 13-29 ms per stream;
 * the bounds leave room for the refresh resolution below and a loaded 2-core host above.
 */
const PIPELINE_MARGIN_MS = { below: -20, above: 90 };

/** @param {string} name @param {string[]} args */
async function run(name, args) {
  const result = await runScenarioCli(name, args);
  assert.equal(result.code, 0, `scenario ${name} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.result;
}

test('latency-100: glass-to-glass is at least the one-way delay, within a margin of it plus the jitter buffer', async () => {
  const result = await run('latency-100', ['--duration', '14', '--warmup', '5']);
  for (const stream of STREAMS) {
    const entries = windowOf(result, stream)
      .filter((e) => Number.isFinite(e.video?.glassToGlassMeanMs) && Number.isFinite(e.video?.jitterBufferDelayMs));
    assert.ok(entries.length >= 8, `${stream.join('->')}: ${entries.length} seconds with a delay`);
    const summary = result.summary.viewer.streams[stream.join('->')];
    const excess = describeValues(entries
      .map((e) => e.video.glassToGlassMeanMs - oneWayAt(result, stream, e.t) - e.video.jitterBufferDelayMs)).median;
    const trace = `${stream.join('->')}: glass-to-glass median ${summary.glassToGlassMs.median} ms (p95 ${summary.glassToGlassMs.p95}), `
      + `one-way 100 ms, excess over one-way + jitter buffer ${excess.toFixed(1)} ms`;
    console.log(trace);
    // The median, not p5: in a CI run on a loaded machine a few frames read below the one-way delay (p5 < 100 ms,
    // median 126.8): the sender's stamps lag its capture when its page is busy, so single frames can read low.
    assert.ok(summary.glassToGlassMs.median >= 100, trace);
    assert.ok(excess >= PIPELINE_MARGIN_MS.below && excess <= PIPELINE_MARGIN_MS.above, trace);
    assert.ok(summary.glassToGlassMs.n > 150, `${trace}: ${summary.glassToGlassMs.n} frames matched`);
  }
});

/** @type {Record<string, any>} */
const unconstrained = {};

test('loss-20 shows freezes (as seen and by getStats) that the unconstrained call does not', async () => {
  // 10 s measured: every one of the loop's 10 captured source frames (codes 0, 30, … 270), for the PSNR test below.
  unconstrained.result = await run('unconstrained', ['--duration', '14', '--warmup', '4']);
  // 20 s measured: NACK over a ~1 ms RTT repairs most losses at once, so freezes come a few a minute (4 in one 8 s
  // window, none in another on CI).
  const lossy = await run('loss-20', ['--duration', '24', '--warmup', '4']);
  const seen = (result) => result.summary.viewer.overall.freezes;
  const getStats = (result) => Object.values(result.summary.viewer.streams).reduce((sum, s) => sum + s.getStatsFreezes.count, 0);
  const trace = `freezes as seen: unconstrained ${JSON.stringify(seen(unconstrained.result))}, loss-20 ${JSON.stringify(seen(lossy))}; `
    + `getStats: ${getStats(unconstrained.result)} vs ${getStats(lossy)}`;
  console.log(trace);
  assert.ok(seen(lossy).count >= 1, trace);
  assert.ok(seen(lossy).count > seen(unconstrained.result).count, trace);
  assert.ok(seen(lossy).totalMs > seen(unconstrained.result).totalMs, trace);
  // Every freeze is a span the report shades.
  assert.equal(lossy.viewer.freezes.length >= seen(lossy).count, true);
  unconstrained.lossy = lossy;
});

test('loss-20: VMAF of the captured frames is lower than unconstrained, per second and in the mean and percentiles', () => {
  assert.ok(unconstrained.lossy, 'the runs of the previous test');
  const vmafOf = (result) => result.summary.viewer.overall.quality.vmaf;
  const [open, lossy] = [vmafOf(unconstrained.result), vmafOf(unconstrained.lossy)];
  const trace = `VMAF unconstrained ${JSON.stringify(open)} vs loss-20 ${JSON.stringify(lossy)}; ${unconstrained.lossy.viewer.vmaf.reason}`;
  console.log(trace);
  assert.equal(unconstrained.lossy.viewer.vmaf.available, true, trace);
  for (const spread of [open, lossy]) assert.ok(spread.p5 <= spread.p50 && spread.p50 <= spread.p95, trace);
  assert.ok(lossy.mean < open.mean, trace);
  // Per second too: at ~11 fps received under 20 % loss few of the once-a-second captured frames arrive (1 second of
  // 20 on one stream in a run here), so over both streams.
  const perSecond = STREAMS.flatMap((stream) => windowOf(unconstrained.lossy, stream)).filter((e) => Number.isFinite(e.video?.vmaf));
  assert.ok(perSecond.length >= 1, `${trace}; ${perSecond.length} seconds with VMAF`);
  assert.ok(perSecond.every((e) => e.video.vmaf >= 0 && e.video.vmaf <= 100), trace);
  assert.ok(Number.isFinite(unconstrained.lossy.summary.overall['video.vmaf']?.mean), 'video.vmaf in the run summary');
});

test('bandwidth-250: PSNR, SSIM and VMAF of the same source frames are lower than unconstrained', async () => {
  assert.ok(unconstrained.result, 'the unconstrained run of the previous test');
  // 16 s measured: the loop's captured source frames twice over. A receiver presents only 75-80 % of the source frames
  // (unconstrained too: 6-8 a second are never shown), so one pass captures 5-7 of the 10 and the common ones with
  // the unconstrained run were 3 in some runs. After a 4 s warm-up, as the unconstrained run's: what is compared is
  // lower quality under the cap, which holds from the call's start (the sender never has more than 250 kbps), not a
  // settled rate: in two runs so, 8-10 common frames a stream, PSNR 29.7-29.9 dB vs 33.4, VMAF 74-77 vs 98.
  const capped = await run('bandwidth-250', ['--duration', '20', '--warmup', '4']);
  for (const [remote, peer] of STREAMS) {
    const scores = (result) => new Map(result.viewer.quality
      .filter((q) => q.peer === peer && q.remote === remote && q.atS > result.scenario.warmupS).map((q) => [q.code, q]));
    const [open, cap] = [scores(unconstrained.result), scores(capped)];
    const common = [...cap.keys()].filter((code) => open.has(code));
    const mean = (map, field) => describeValues(common.map((code) => map.get(code)[field])).mean;
    const trace = `${remote}->${peer}: ${common.length} common frames; PSNR ${mean(open, 'psnrDb')?.toFixed(2)} dB unconstrained vs `
      + `${mean(cap, 'psnrDb')?.toFixed(2)} dB at 250 kbps (${[...new Set(common.map((code) => `${cap.get(code).width}x${cap.get(code).height}`))].join(', ')}); `
      + `SSIM ${mean(open, 'ssim')?.toFixed(3)} vs ${mean(cap, 'ssim')?.toFixed(3)}; VMAF ${mean(open, 'vmaf')?.toFixed(1)} vs ${mean(cap, 'vmaf')?.toFixed(1)}`;
    console.log(trace);
    assert.ok(common.length >= 3, trace);
    assert.ok(mean(cap, 'psnrDb') < mean(open, 'psnrDb'), trace);
    assert.ok(mean(cap, 'ssim') < mean(open, 'ssim'), trace);
    assert.ok(mean(cap, 'vmaf') < mean(open, 'vmaf'), trace);
  }
});
