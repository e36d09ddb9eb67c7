// Codec selection and constrained devices with real browsers through the relay (360p30, compressed): each of VP8, VP9,
// H.264 and AV1 negotiated on both connections' both directions and recorded with video flowing; a codec this Chromium
// cannot send (H.264 High profile: its capabilities list only 42…/4d… profiles) failing with exit 4 before the call;
// the four runs side by side in `compare`; and constrained-device's peer whose page is held to a CPU quota (a cgroup),
// whose AV1 encoder reports `cpu`.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { formatClock } from '../orchestrator/report/format.js';
import { runValues } from '../orchestrator/lib/result/metric-values.js';
import { runCli, runScenarioCli, tempDir } from './helpers/cli.js';

const CODECS = { vp8: 'video/VP8', vp9: 'video/VP9', h264: 'video/H264', av1: 'video/AV1' };
// The codec runs check wiring (the codec negotiated and recorded, video flowing): 2 measured seconds after a 1 s
// warm-up. In 6 s calls (3 s warm-up) of three runs each of the four codecs: video means 1650-1730 kbps (> 300
// asserted), frame rates 27.0-30.2 fps (> 15); in 5 s calls (2 s warm-up), 1656-1684 kbps and 27.2-30.0 fps; in 3 s
// calls (1 s warm-up), in two runs of the file, 1354-1641 kbps and 28.3-30.1 fps.
const WARMUP_S = 1;
const SHORT = ['--duration', String(WARMUP_S + 2), '--warmup', String(WARMUP_S)];
// The scenario's own 720p30 video: p0 sends p1 up to 1280×720, whose decoding is part of the constrained page's load
// (as on J16's phones). WebRTC's overuse detector needs 120 encoded frames at one resolution and four 5 s checks before
// it acts, and resets when no frame reaches the encoder for 1.5 s: p1 reported `cpu` 15-33 s into the call in the 7
// runs measured here, so the call lasts 50 s.
const CONSTRAINED = ['--video', '720p30', '--duration', '50', '--warmup', '3'];
/** @type {Record<string, { out: string, result: any }>} */
const runs = {};

for (const [name, mimeType] of Object.entries(CODECS)) {
  test(`codec-${name}: ${mimeType} negotiated both ways on both peers, recorded with its implementation, video flowing`, async () => {
    const run = await runScenarioCli(`codec-${name}`, SHORT);
    assert.equal(run.code, 0, `exit ${run.code}:\n${run.stdout}\n${run.stderr}`);
    const { result } = run;
    runs[name] = run;
    assert.equal(result.environment.codecs.requested.mimeType, mimeType);
    for (const [peer, remote] of [['p0', 'p1'], ['p1', 'p0']]) {
      const connection = result.environment.codecs.peers[peer]?.[remote];
      for (const direction of ['send', 'recv']) {
        const codec = connection?.[direction];
        assert.equal(codec?.mimeType, mimeType, `${peer}->${remote} ${direction}: ${JSON.stringify(connection)}`);
        // Dynamic payload types: 96-127, and 35-63 where Chromium ran out of those (AV1 gets 45).
        const dynamic = (codec.payloadType >= 96 && codec.payloadType <= 127) || (codec.payloadType >= 35 && codec.payloadType <= 63);
        assert.ok(Number.isInteger(codec.payloadType) && dynamic, `${peer} ${direction} payload type ${codec.payloadType}`);
        assert.ok(codec.implementation, `${peer} ${direction}: no ${direction === 'send' ? 'encoder' : 'decoder'} implementation`);
        assert.equal(typeof codec.powerEfficient, 'boolean', `${peer} ${direction} powerEfficient`);
        // The browsers' default feedback (test/e2e-bandwidth-estimation.test.js runs without it).
        assert.equal(codec.transportWideCc, true, `${peer} ${direction} negotiated transport-wide feedback`);
        if (name !== 'vp8') assert.ok(codec.sdpFmtpLine, `${peer} ${direction}: ${name} has an fmtp line`);
      }
    }
    // Every codec was known when the call started, so a mismatch would have failed it before the measurement window.
    const codecEvents = result.events.filter((event) => event.type === 'codec');
    // The call starts in the millisecond the last of them arrives.
    const firstFour = codecEvents.slice(0, 4);
    assert.ok(firstFour.length === 4 && firstFour.every((event) => event.atS <= 0), JSON.stringify(codecEvents.map((e) => e.atS)));
    const { overall } = result.summary;
    console.log(`codec-${name}: video ${overall['video.recvKbps'].mean} kbps, ${overall['video.recvFps'].mean} fps (means)`);
    assert.ok(overall['video.recvKbps'].mean > 300, `video ${overall['video.recvKbps'].mean} kbps`);
    assert.ok(overall['video.recvFps'].mean > 15, `${overall['video.recvFps'].mean} fps`);
    assert.ok(overall['video.qpPerFrame'].n > 0 && overall['video.qpPerFrame'].mean > 0, JSON.stringify(overall['video.qpPerFrame']));
    const measured = result.timeline.filter((entry) => entry.t > WARMUP_S);
    const { codec, encoderImplementation, decoderImplementation } = Object.fromEntries(['codec', 'encoderImplementation', 'decoderImplementation']
      .map((field) => [field, new Set(measured.map((entry) => entry.video[field]))]));
    assert.deepEqual([...codec], [mimeType.slice(6)]);
    assert.ok(![...encoderImplementation, ...decoderImplementation].includes(null), `${[...encoderImplementation]} / ${[...decoderImplementation]}`);
    // Neither peer is CPU-limited by the harness's own verdict on an unconstrained call; both were judged.
    const { harness } = result.summary.cpuLimitation;
    assert.deepEqual(Object.keys(harness.peers), ['p0', 'p1'], JSON.stringify(harness));
    for (const peer of ['p0', 'p1']) assert.ok(harness.peers[peer].judgedS > 0 && !harness.peers[peer].limited, JSON.stringify(harness));
    assert.equal(harness.limited, false);
  });
}

test('compare over the four codec runs puts them side by side, each labelled by its codec', async () => {
  const names = Object.keys(CODECS).filter((name) => runs[name]);
  assert.equal(names.length, 4, 'every codec run passed');
  const out = path.join(tempDir(), 'codecs.html');
  const run = await runCli(['compare', ...names.map((name) => runs[name].out), '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  const html = readFileSync(out, 'utf8');
  const table = html.slice(html.indexOf('<table class="summary codecs">'), html.indexOf('</table>', html.indexOf('<table class="summary codecs">')));
  for (const codec of ['VP8', 'VP9', 'H264', 'AV1']) {
    assert.ok(table.includes(`data-codec="${codec}"`), `${codec} column`);
    assert.ok(html.includes(`${codec} · run`), `${codec} run label`);
  }
  for (const row of ['video.recvKbps', 'video.recvFps', 'resolution', 'video.freezeCount', 'video.qpPerFrame']) assert.ok(table.includes(`data-metric="${row}"`), row);
  assert.ok(table.includes('(1440)'), 'J16 table 8-11 VP8 rate beside ours');
});

test('a codec this Chromium cannot send fails with exit 4 before the call, naming it and what the browser lists', async () => {
  const run = await runScenarioCli('codec-h264', [...SHORT, '--codec', 'h264:profile=64']);
  assert.equal(run.code, 4, `${run.stdout}\n${run.stderr}`);
  const { result } = run;
  assert.equal(result.status, 'failed');
  assert.match(result.errors[0].message, /^codec H264 \(profile-level-id 64…\) requested, but this browser cannot use it: RTCRtpSender\.getCapabilities\('video'\) lists .*H264 42e01f/);
  assert.equal(result.errors[0].atS, null, 'failed before the call started');
  assert.equal(result.timeline.length, 0);
  assert.ok(!result.events.some((event) => event.type === 'call-started' || event.type === 'codec'));
});

let constrained;

test('constrained-device: the peer held to a CPU quota has its capture capped, its page in the cgroup and throttled', async () => {
  constrained = await runScenarioCli('constrained-device', CONSTRAINED);
  const { code, stdout, stderr, result } = constrained;
  assert.equal(code, 0, `exit ${code}:\n${stdout}\n${stderr}`);
  const capture = (peer) => result.events.find((event) => event.type === 'media-ready' && event.peer === peer).video;
  // The phone's 640×480 at 30 fps: Chromium's fake camera adapts the 1280×720 test video to the constraints' size.
  assert.deepEqual([capture('p1').width, capture('p1').height], [640, 480]);
  assert.ok(capture('p1').frameRate <= 30);
  assert.deepEqual(Object.keys(result.summary.cpuLimitation.peers), ['p0', 'p1']);
  assert.equal(result.environment.codecs.requested.mimeType, 'video/AV1');

  // The cgroup: recorded, the page's processes moved in before it loaded, every write in the command log, removed after.
  const { p1: cgroup } = result.environment.cgroups.peers;
  const quotaCores = loadScenario('constrained-device').devices.p1.cpuQuotaCores;
  assert.equal(cgroup.cpuQuotaCores, quotaCores);
  assert.equal(cgroup.quotaUs, Math.round(quotaCores * cgroup.periodUs));
  const at = (type) => result.events.find((event) => event.type === type && event.peer === 'p1');
  // At least the zygote that forks the renderers.
  assert.ok(at('cgroup-attached').processes >= 1 && at('cgroup-attached').epochMs <= at('page-loaded').epochMs, JSON.stringify(at('cgroup-attached')));
  const commands = result.network.commands.map((record) => record.cmd);
  for (const dir of cgroup.paths) {
    assert.ok(commands.includes(`mkdir ${dir}`) && commands.includes(`rmdir ${dir}`), commands.join('\n'));
    assert.ok(commands.some((line) => line.startsWith('for pid in ') && line.endsWith(`> ${dir}/cgroup.procs; done`)), commands.join('\n'));
    assert.ok(!existsSync(dir), `${dir} removed`);
  }
  assert.ok(result.network.commands.length > 0, 'result.network.commands: nothing to check');
  assert.ok(result.network.commands.every((record) => record.ok), JSON.stringify(result.network.commands.filter((record) => !record.ok)));
  // The quota held the page back (the kernel's CFS accounting, read before the cgroup was removed).
  assert.ok(cgroup.cpuStat.throttledPeriods > 0 && cgroup.cpuStat.throttledMs > 0, JSON.stringify(cgroup.cpuStat));
});

// The quota starves the whole renderer, and AV1's software encoder, the costliest part of it, falls behind the frames.
// Chromium's own detector then adapts for the CPU 17–24 s into most calls (6 of 7 on 29–30 November 2026), but in one
// its usage estimate stayed under its 85 % threshold for the whole 50 s although each frame took ~120 ms to encode:
// the harness's own verdict (the next test) is the one judged; Chromium's reason is carried as it came.
test('constrained-device: Chromium\'s cpu reason reaches the timeline, the summary and the report as it came; the encoder behind it is slow', () => {
  const { result } = constrained;
  const { peers } = result.summary.cpuLimitation;
  const inWindow = (peer) => result.timeline.filter((entry) => entry.peer === peer && entry.t > 3 && entry.t <= 50);
  const cpuSeconds = (peer) => new Set(inWindow(peer).filter((entry) => entry.video.qualityLimitationReason === 'cpu').map((entry) => Math.round(entry.t)));
  // The starved page misses some of its once-a-second samples (38 of the window's 47 once, 20 on 30 November): enough
  // seconds that the counts below are not of a handful.
  assert.ok(inWindow('p1').length >= 15, `${inWindow('p1').length} seconds of p1`);
  assert.equal(peers.p1.limitedS, cpuSeconds('p1').size, JSON.stringify(peers));
  assert.equal(peers.p0.limitedS, 0, `the unconstrained peer is not CPU-limited: ${JSON.stringify(peers)}`);
  assert.equal(cpuSeconds('p0').size, 0);
  // Why: p1's encoder took longer per frame than the 30 fps frame interval (33 ms), p0's, on 3 times the pixels, did not.
  const median = (peer) => result.summary.peers[peer]['video.encodeMsPerFrame'].median;
  assert.ok(median('p1') > 1000 / 30 && median('p0') < median('p1'), `encode ms per frame: p0 ${median('p0')}, p1 ${median('p1')}`);
  const report = readFileSync(path.join(constrained.out, 'report.html'), 'utf8');
  console.log(`Chromium reported cpu for p1 in ${peers.p1.limitedS} s (${JSON.stringify(peers.p1.episodes)})`);
  if (peers.p1.limitedS === 0) {
    assert.ok(!report.includes('<b>CPU-limited seconds</b>'), 'no CPU-limited seconds in the report when Chromium gave none');
    return;
  }
  // It adapted for the CPU: below the 640 px it started at.
  const cpu = inWindow('p1').filter((entry) => entry.video.qualityLimitationReason === 'cpu');
  assert.ok(cpu.some((entry) => entry.video.sentWidth < 640), JSON.stringify(cpu.map((entry) => entry.video.sentWidth)));
  const spans = peers.p1.episodes.map((span) => `${formatClock(span.fromS)}–${formatClock(span.toS)}`).join(', ');
  assert.ok(report.includes(`<b>p1</b> ${peers.p1.limitedS} s (${spans})`), 'the report names p1\'s CPU-limited seconds and spans');
});

test('constrained-device: the harness\'s own verdict marks p1 CPU-limited and p0 not, in the summary, the report and the suite\'s value', () => {
  const { result } = constrained;
  const { harness } = result.summary.cpuLimitation;
  const p1 = result.timeline.filter((entry) => entry.peer === 'p1' && entry.t > 3);
  const trace = `${JSON.stringify(harness.peers)}; p1 encode ms ${p1.map((e) => e.video.encodeMsPerFrame).join(' ')}; `
    + `sent/captured fps ${p1.map((e) => `${e.video.sentFps}/${e.video.capturedFps}`).join(' ')}`;
  console.log(trace);
  assert.equal(harness.peers.p1.limited, true, trace);
  assert.equal(harness.peers.p0.limited, false, trace);
  assert.ok(harness.peers.p0.judgedS > 0, trace);
  assert.equal(harness.limited, true);
  const report = readFileSync(path.join(constrained.out, 'report.html'), 'utf8');
  assert.match(report, new RegExp(`CPU-limited by the harness's verdict</b>[^<]*.*<b>p1</b> ${harness.peers.p1.limitedS} of ${harness.peers.p1.judgedS} s`));
  assert.ok(runValues(result).cpuLimitedSharePct > 0.2, `suite value ${runValues(result).cpuLimitedSharePct}`);
});
