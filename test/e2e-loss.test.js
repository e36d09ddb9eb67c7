// The shipped loss-5 scenario, compressed (time scale 0.1: 30 s, the first 5 s warm-up), through the relay with two
// real browsers: 5 % random loss on each uplink on the wire, and what the receivers are left missing after recovery.
// NACK/RTX repairs video; Opus audio is not retransmitted, so audio loses what the wire loses. Chromium's packetsLost
// counts a repaired video packet as lost (RFC 3550's receiver-report loss), so video.lossPct is the wire's loss too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { runScenarioCli } from './helpers/cli.js';

const CONFIGURED_PCT = 5;
// Opus sends one packet per 20 ms frame (Chromium's default ptime): the audio packet count behind a mean.
const AUDIO_PACKETS_PER_S = 50;
/** Binomial standard error of a loss fraction of CONFIGURED_PCT measured over n packets, in percentage points. */
const standardErrorPct = (n) => 100 * Math.sqrt((CONFIGURED_PCT / 100) * (1 - CONFIGURED_PCT / 100) / n);

let run;

before(async () => {
  run = await runScenarioCli('loss-5', ['--time-scale', '0.1', '--warmup', '5']);
});

const passed = () => {
  assert.equal(run.code, 0, `scenario loss-5 exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  assert.equal(run.result.status, 'passed', JSON.stringify(run.result.errors));
  assert.equal(run.result.scenario.durationS, 30);
  return run.result;
};

test('loss on the wire: ~5 % of the packets entering each uplink, within 4 standard errors of its packet count; none downstream', () => {
  const { links } = passed().summary.loss;
  for (const link of ['p0.up', 'p1.up']) {
    const { packetsIn, dropsQueue, wireLossPct } = links[link];
    assert.ok(packetsIn > 1000, `${link}: only ${packetsIn} packets in the window`);
    assert.equal(dropsQueue, 0, `${link}: an uncapped link drops nothing at its queue`);
    const tolerancePct = 4 * standardErrorPct(packetsIn);
    assert.ok(Math.abs(wireLossPct - CONFIGURED_PCT) <= tolerancePct, `${link}: ${wireLossPct} % of ${packetsIn} packets (±${tolerancePct.toFixed(2)})`);
  }
  for (const link of ['p0.down', 'p1.down']) assert.equal(links[link].wireLossPct, 0, `${link} is lossless`);
});

test('after recovery: audio loses what the wire loses, video far less, repaired by retransmissions', () => {
  const { flows } = passed().summary.loss;
  for (const flow of ['p0->p1', 'p1->p0']) {
    const stats = flows[flow];
    const wire = stats.wireLossPct.mean;
    const audio = stats['audio.lossPct'];
    const video = stats['video.residualLossPct'].mean;
    assert.ok(audio.n >= 20 && stats.wireLossPct.n >= 20, `${flow}: ${audio.n} audio and ${stats.wireLossPct.n} wire seconds`);
    const audioTolerancePct = 4 * standardErrorPct(AUDIO_PACKETS_PER_S * audio.n);
    const audioVsWire = `audio ${audio.mean} % after recovery vs ${wire} % on the wire (±${audioTolerancePct.toFixed(2)})`;
    assert.ok(Math.abs(audio.mean - wire) <= audioTolerancePct, `${flow}: ${audioVsWire}`);
    // Video's packets per second are at least audio's, so the audio tolerance bounds it too.
    const beforeRepair = stats['video.lossPct'].mean;
    assert.ok(Math.abs(beforeRepair - wire) <= audioTolerancePct, `${flow}: video ${beforeRepair} % before retransmission vs ${wire} % on the wire`);
    assert.ok(video < wire / 2, `${flow}: video ${video} % after recovery vs ${wire} % on the wire`);
    assert.ok(stats['video.recoveredLossPct'].mean > wire / 2, `${flow}: video recovered ${stats['video.recoveredLossPct'].mean} %`);
    assert.ok(stats['video.retransmittedPacketsReceived'].mean > 0, `${flow}: no retransmissions received`);
  }
});

test('the page measures video jitter and the jitter-buffer delays', () => {
  const { overall } = passed().summary;
  for (const path of ['video.jitterMs', 'video.jitterBufferDelayMs', 'audio.jitterBufferDelayMs']) {
    assert.ok(overall[path]?.n > 0 && overall[path].mean > 0, `${path}: ${JSON.stringify(overall[path])}`);
  }
});

test('the report shows a "Loss: on the wire vs after recovery" panel per flow and the wire loss per link', () => {
  passed();
  const html = readFileSync(path.join(run.out, 'report.html'), 'utf8');
  for (const flow of ['p0 → p1', 'p1 → p0']) assert.ok(html.includes(`Loss: on the wire vs after recovery (${flow})`), flow);
  assert.ok(html.includes('Loss on the wire per link'));
});
