// What the viewer saw (orchestrator/lib/viewer/viewer.js) and the check of a page's drain (run/viewer-input.js): the W3C
// freeze definition, matching received pictures to the sender's frames, skipped frames, per-second values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UNREAD_CODE as PAGE_UNREAD_CODE } from '../../client-app/frame-code.js';
import { unreadTimes } from '../../client-app/frame-reader.js';
import { checkDrain } from '../../orchestrator/run/viewer-input.js';
import {
  UNREAD_CODE, codeAdvance, findFreezes, matchDelays, pictures, skippedBetween, viewerSection, withViewer,
} from '../../orchestrator/lib/viewer/viewer.js';
import { withGetStatsFreezes } from '../../orchestrator/lib/viewer/viewer-summary.js';
import { burstTimes } from '../../orchestrator/run/viewer-collector.js';

/** Display times of `count` frames every `intervalMs` from `fromMs`. */
const steady = (count, intervalMs, fromMs = 0) => Array.from({ length: count }, (_, i) => fromMs + i * intervalMs);

test('a freeze is a picture on screen for max(3 × avg, avg + 150 ms) or longer, avg over the 30 before it', () => {
  // 30 fps: the threshold is max(100, 183.3) ms.
  const at30 = (gapMs) => [...steady(40, 1000 / 30), 39 * (1000 / 30) + gapMs, 39 * (1000 / 30) + gapMs + 1000 / 30];
  assert.deepEqual(findFreezes(at30(150)), []);
  assert.deepEqual(findFreezes(at30(180)), []);
  const [freeze] = findFreezes(at30(190));
  assert.equal(Math.round(freeze.durationMs), 190);
  assert.equal(freeze.startEpochMs, 39 * (1000 / 30));
  // 5 fps: 3 × 200 ms = 600 ms beats 200 + 150.
  const at5 = (gapMs) => [...steady(10, 200), 9 * 200 + gapMs, 9 * 200 + gapMs + 200];
  assert.deepEqual(findFreezes(at5(590)), []);
  assert.equal(findFreezes(at5(600)).length, 1);
  // The first picture has no average; the last has no end.
  assert.deepEqual(findFreezes([0, 5000]), []);
  assert.deepEqual(findFreezes([...steady(30, 33), 33 * 29 + 5000].slice(0, 30)), []);
  // The average is over the last 30 only: 400 ms pictures after 33 ms ones freeze until the average passes 133 ms
  // (9 of them), then they are the normal pace.
  assert.equal(findFreezes([...steady(30, 33), ...steady(31, 400, 33 * 29 + 400)]).length, 9);
});

test('repeated codes are one picture; an unreadable frame is a picture of its own', () => {
  assert.deepEqual(pictures([4, 4, 5, -1, -1, 6], [0, 16, 33, 50, 66, 83]), [
    { epochMs: 0, code: 4 }, { epochMs: 33, code: 5 }, { epochMs: 50, code: null }, { epochMs: 66, code: null }, { epochMs: 83, code: 6 },
  ]);
});

test('a received picture matches the latest showing of its code at the sender within half a loop', () => {
  // A 10-frame loop at 10 fps: code 3 is shown at 300 ms and again at 1300 ms.
  const sent = steady(20, 100).map((epochMs, i) => ({ epochMs, code: i % 10 }));
  const received = [
    { epochMs: 420, code: 3 }, { epochMs: 1450, code: 3 }, { epochMs: 1250, code: 2 }, { epochMs: 900, code: null },
    { epochMs: 1000, code: 7 }, { epochMs: 2000, code: 3 }, { epochMs: 200, code: 9 },
  ];
  // 2000 - 1300 = 700 ms is over half the 1000 ms loop: another showing, not a match; code 9 was not shown before 200.
  assert.deepEqual(matchDelays(received, sent, 1000), [120, 150, 50, null, 300, null, null]);
});

test('codeAdvance counts source frames across the loop', () => {
  assert.deepEqual([codeAdvance(5, 6, 300), codeAdvance(5, 5, 300), codeAdvance(298, 1, 300), codeAdvance(10, 14, 300)], [1, 0, 3, 4]);
});

test('skipped frames: the code advance minus one, with whole loops taken from the display gap', () => {
  const media = { fps: 30, frames: 300 };
  assert.equal(skippedBetween({ epochMs: 0, code: 10 }, { epochMs: 33, code: 11 }, media), 0);
  assert.equal(skippedBetween({ epochMs: 0, code: 10 }, { epochMs: 100, code: 13 }, media), 2);
  assert.equal(skippedBetween({ epochMs: 0, code: 298 }, { epochMs: 100, code: 1 }, media), 2);
  // A 12 s freeze on a 10 s loop: 360 frames on, though the code moved by 60.
  assert.equal(skippedBetween({ epochMs: 0, code: 10 }, { epochMs: 12_000, code: 70 }, media), 359);
  assert.equal(skippedBetween({ epochMs: 0, code: null }, { epochMs: 33, code: 11 }, media), null);
  // A code one back, 33 ms later (a callback that read a newer frame, then the next one the older): no skip of 298.
  assert.equal(skippedBetween({ epochMs: 0, code: 11 }, { epochMs: 33, code: 10 }, media), 0);
  assert.equal(skippedBetween({ epochMs: 0, code: 0 }, { epochMs: 33, code: 299 }, media), 0);
});

/** Sender p0's camera at 30 fps for 4 s; p1 shows it 100 ms later, loses frames 40-44 and repeats frame 70. */
function twoSeconds() {
  const startMs = 10_000;
  const sent = steady(120, 1000 / 30, startMs + 1).map((epochMs, i) => ({ epochMs, code: i }));
  const shown = sent.filter(({ code }) => code < 40 || code > 44)
    .flatMap((frame) => (frame.code === 70 ? [frame, { ...frame, epochMs: frame.epochMs + 16 }] : [frame]))
    .map((frame) => ({ ...frame, epochMs: frame.epochMs + 100 }));
  const batch = (peer, source, list) => ({
    peer, source, codes: list.map((f) => f.code), epochMs: list.map((f) => f.epochMs), readMs: 6,
  });
  return {
    startMs,
    input: {
      batches: [
        batch('p0', 'local', sent.slice(0, 60)), batch('p1', 'p0', shown.slice(0, 50)),
        batch('p0', 'local', sent.slice(60)), batch('p1', 'p0', shown.slice(50)),
      ],
      media: { p0: { fps: 30, frames: 300, frameCode: true } },
      mediaStartEpochMs: startMs, durationS: 4, warmupS: 1,
      scores: [{ peer: 'p1', remote: 'p0', epochMs: startMs + 1500, code: 45, width: 640, height: 360, psnrDb: 31, ssim: 0.9, vmaf: 70 },
        { peer: 'p1', remote: 'p0', epochMs: startMs + 1700, code: 51, width: 640, height: 360, psnrDb: 33, ssim: 0.8, vmaf: 90 }],
    },
  };
}

test('per second: glass-to-glass, frames presented and seen, skips, freezes, scores; the stream summary over the window', () => {
  const { input } = twoSeconds();
  const section = viewerSection(input);
  const second = (t) => section.perSecond.find((row) => row.t === t && row.peer === 'p1' && row.remote === 'p0').video;
  assert.deepEqual(second(2), {
    glassToGlassMs: 100, glassToGlassMeanMs: 100, glassToGlassP95Ms: 100, glassToGlassMaxMs: 100,
    // Frames 30-59 minus the 5 lost: 25 presented, 25 pictures; the loss shows as 5 skipped and a 200 ms freeze.
    framesShown: 25, framesSkipped: 5, shownFps: 25, viewerFreezes: 1, viewerFreezeMs: 200, psnrDb: 32, ssim: 0.85, vmaf: 80,
  });
  // Frame 70 shown twice: 31 presented, 30 seen.
  assert.deepEqual([second(3).framesShown, second(3).shownFps, second(3).framesSkipped, second(3).viewerFreezes], [31, 30, 0, 0]);
  assert.deepEqual(section.freezes, [{ peer: 'p1', remote: 'p0', atS: 1.401, durationMs: 200 }]);
  const stream = section.streams['p0->p1'];
  assert.equal(stream.glassToGlassMs.n, 85);
  assert.equal(stream.glassToGlassMs.mean, 100);
  assert.deepEqual([stream.framesShown, stream.framesSkipped, stream.freezes.count, stream.freezes.totalMs], [86, 5, 1, 200]);
  assert.deepEqual(stream.quality, { captures: 2, psnrDb: 32, ssim: 0.85, vmaf: { mean: 80, p5: 71, p50: 80, p95: 89 } });
  assert.deepEqual(section.overall.quality.vmaf, { mean: 80, p5: 71, p50: 80, p95: 89 });
  assert.deepEqual(section.overall.freezes, { count: 1, totalMs: 200 });
  assert.deepEqual(section.readCost.p0, { framesRead: 120, readMsPerFrame: 0.1, cpuPct: 0.3 });
  assert.equal(section.quality[0].atS, 1.5);
});

test('captures without VMAF (no libvmaf) give null VMAF, not 0, beside their PSNR and SSIM', () => {
  const { input } = twoSeconds();
  const section = viewerSection({ ...input, scores: input.scores.map(({ vmaf, ...score }) => score) });
  assert.equal(section.streams['p0->p1'].quality.vmaf, null);
  assert.equal(section.overall.quality.vmaf, null);
  assert.equal(section.perSecond.find((row) => row.t === 2 && row.peer === 'p1').video.vmaf, null);
  assert.equal(section.streams['p0->p1'].quality.psnrDb, 32);
});

test("a second's mean and median glass-to-glass part where the playout delay jumps mid-second", () => {
  const startMs = 10_000;
  const sent = steady(30, 1000 / 30, startMs + 1).map((epochMs, i) => ({ epochMs, code: i }));
  // The first 10 frames shown 100 ms after the camera, the rest at 400 ms.
  const shown = sent.map((frame, i) => ({ ...frame, epochMs: frame.epochMs + (i < 10 ? 100 : 400) }));
  const batch = (peer, source, list) => ({ peer, source, codes: list.map((f) => f.code), epochMs: list.map((f) => f.epochMs), readMs: 1 });
  const section = viewerSection({
    batches: [batch('p0', 'local', sent), batch('p1', 'p0', shown.filter((frame) => frame.epochMs < startMs + 1000))],
    media: { p0: { fps: 30, frames: 300, frameCode: true } }, mediaStartEpochMs: startMs, durationS: 2, warmupS: 0,
  });
  const { video } = section.perSecond.find((row) => row.t === 1);
  // 10 frames at 100 ms and the 8 at 400 ms that land in the second.
  assert.deepEqual([video.glassToGlassMs, video.glassToGlassMeanMs], [100, Math.round(((10 * 100 + 8 * 400) / 18) * 10) / 10]);
});

test('a sender without the frame code: frames and freezes still, no delay and no skips', () => {
  const { input } = twoSeconds();
  const section = viewerSection({ ...input, media: { p0: { fps: 30 } } });
  const row = section.perSecond.find((entry) => entry.t === 2).video;
  assert.deepEqual([row.glassToGlassMs, row.framesSkipped, row.viewerFreezes, row.framesShown], [null, null, 1, 25]);
  assert.equal(section.streams['p0->p1'].glassToGlassMs.n, 0);
  assert.equal(section.streams['p0->p1'].unavailable, "no frame code in p0's media");
});

test('a stream without glass-to-glass says why: codes unreadable at the receiver, or never read at the sender', () => {
  const { input } = twoSeconds();
  assert.equal(viewerSection(input).streams['p0->p1'].unavailable, null);
  const unreadable = input.batches.map((batch) => (batch.source === 'local' ? batch : { ...batch, codes: batch.codes.map(() => -1) }));
  const blind = viewerSection({ ...input, batches: unreadable }).streams['p0->p1'];
  assert.deepEqual([blind.glassToGlassMs.n, blind.unreadableFrames, blind.unavailable], [0, 86, 'p1 read no frame code from the 116 frames it presented']);
  const noCamera = viewerSection({ ...input, batches: input.batches.filter((batch) => batch.source !== 'local') }).streams['p0->p1'];
  assert.deepEqual([noCamera.glassToGlassMs.n, noCamera.unavailable], [0, "p0 read no frame code from its own camera's frames"]);
});

test('frames presented between two callbacks count as shown, each a picture of its own, and not as unreadable', () => {
  assert.equal(UNREAD_CODE, PAGE_UNREAD_CODE, 'the page and the viewer agree on the code of a frame never read');
  // A callback that stands for three presented frames: the two before it were shown evenly between the callbacks.
  assert.deepEqual(unreadTimes(1000, 1100, 2), [1033.3, 1066.7]);
  assert.deepEqual([unreadTimes(1000, 1033, 0), unreadTimes(1000, 1033, -1)], [[], []]);
  const startMs = 10_000;
  const sent = steady(30, 1000 / 30, startMs + 1).map((epochMs, i) => ({ epochMs, code: i }));
  // Every third frame's callback came with the next frame's (presented, never read); frame 5 was never presented.
  const shown = sent.map((frame, i) => ({ epochMs: frame.epochMs + 100, code: i % 3 === 1 ? UNREAD_CODE : frame.code }))
    .filter((_, i) => i !== 5);
  const batch = (peer, source, list) => ({ peer, source, codes: list.map((f) => f.code), epochMs: list.map((f) => f.epochMs), readMs: 1 });
  const section = viewerSection({
    batches: [batch('p0', 'local', sent), batch('p1', 'p0', shown.filter((frame) => frame.epochMs < startMs + 1000))],
    media: { p0: { fps: 30, frames: 300, frameCode: true } }, mediaStartEpochMs: startMs, durationS: 1, warmupS: 0,
  });
  const { video } = section.perSecond.find((row) => row.t === 1);
  // 26 of the frames land in the first second (27 of the source's, the rest 100 ms later, less frame 5); 9 unread;
  // the one skipped is frame 5, between read frames 3 and 6 with unread frame 4 shown between them.
  assert.deepEqual([video.framesShown, video.shownFps, video.framesSkipped, video.glassToGlassMs], [26, 26, 1, 100]);
  const stream = section.streams['p0->p1'];
  assert.deepEqual([stream.framesShown, stream.framesSkipped, stream.unreadableFrames, stream.glassToGlassMs.n], [26, 1, 0, 17]);
});

test("getStats' freezes beside the viewer's: summed over the window, null where the browser has no such field", () => {
  // Only frameCode: the field the cross-check passes through.
  const streams = /** @type {Parameters<typeof withGetStatsFreezes>[0]} */ (/** @type {unknown} */ ({ 'p0->p1': { frameCode: true }, 'p1->p0': { frameCode: true } }));
  const timeline = [1, 2, 3].flatMap((t) => [
    { t, peer: 'p1', remote: 'p0', video: { freezeCount: t === 3 ? 1 : 0, freezeDurationMs: t === 3 ? 420 : 0 } },
    // A browser whose inbound-rtp has neither freezeCount nor totalFreezesDuration.
    { t, peer: 'p0', remote: 'p1', video: { freezeCount: null, freezeDurationMs: null } },
  ]);
  const checked = withGetStatsFreezes(streams, timeline, [1, 3]);
  assert.deepEqual(checked['p0->p1'].getStatsFreezes, { count: 1, totalMs: 420 });
  assert.deepEqual(checked['p1->p0'].getStatsFreezes, { count: null, totalMs: null });
});

test('the values join the timeline entry of their second, peer and remote', () => {
  const timeline = [{ t: 2, peer: 'p1', remote: 'p0', video: { recvKbps: 900 } }, { t: 2, peer: 'p0', remote: 'p1', video: { recvKbps: 800 } }];
  const merged = withViewer(timeline, [{ t: 2, peer: 'p1', remote: 'p0', video: { glassToGlassMs: 120 } }]);
  assert.deepEqual(merged, [{ t: 2, peer: 'p1', remote: 'p0', video: { recvKbps: 900, glassToGlassMs: 120 } }, timeline[1]]);
});

test('a page drain is checked field by field: sources, lengths, code range, capture size', () => {
  const luma = Buffer.alloc(32 * 18, 7).toString('base64');
  const good = {
    frames: { local: { codes: [1, -1], epochMs: [1e12, 1e12 + 33], readMs: 0.4 }, p1: { codes: [], epochMs: [], readMs: 0 } },
    captures: [{ source: 'p1', epochMs: 1e12, code: 1, width: 32, height: 18, luma }],
  };
  const checked = checkDrain(good, 'p0', ['p1', 'p2']);
  assert.ok(checked.ok);
  assert.equal(checked.value.batches.length, 2);
  assert.equal(checked.value.captures[0].luma.length, 32 * 18);
  const reason = (drain) => {
    const result = checkDrain(drain, 'p0', ['p1', 'p2']);
    return 'reason' in result ? result.reason : null;
  };
  assert.match(reason(null), /frame reader of p0: drain must be/);
  assert.match(reason({ ...good, frames: { p9: good.frames.local } }), /unknown source "p9"; expected local or p1, p2/);
  assert.match(reason({ ...good, frames: { local: { ...good.frames.local, codes: [1] } } }), /equally long/);
  assert.match(reason({ ...good, frames: { local: { ...good.frames.local, codes: [1, 70000] } } }), /integers from -2 to 65535/);
  assert.match(reason({ ...good, frames: { local: { ...good.frames.local, codes: [1, -3] } } }), /integers from -2 to 65535/);
  assert.ok(checkDrain({ ...good, frames: { p1: { ...good.frames.local, codes: [1, UNREAD_CODE] } } }, 'p0', ['p1']).ok);
  assert.match(reason({ ...good, frames: { local: { ...good.frames.local, epochMs: [1, 'x'] } } }), /epoch milliseconds/);
  assert.match(reason({ ...good, captures: [{ ...good.captures[0], luma: luma.slice(8) }] }), /576 bytes of base64/);
  assert.match(reason({ ...good, captures: [{ ...good.captures[0], width: 100000 }] }), /width and height/);
  assert.match(reason({ ...good, captures: Array(17).fill(good.captures[0]) }), /17 captures; at most 16/);
});

test('capture bursts: at every step change and at the first and last step of a ramp', () => {
  const ramp = Array.from({ length: 11 }, (_, i) => 20 + i * 0.5);
  assert.deepEqual(burstTimes([60, ...ramp, 10, 10]), [10, 20, 25, 60]);
});
