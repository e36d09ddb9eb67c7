import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREEN_SUFFIX as PAGE_SCREEN_SUFFIX } from '../../client-app/screen-share.js';
import { intervalMetrics, snapshotFromStats } from '../../client-app/stats.js';
import { SCREEN_SUFFIX, screenShareOf, screenSources, sourceMedia } from '../../orchestrator/lib/media/screen-share.js';
import { withViewer } from '../../orchestrator/lib/viewer/viewer.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { screenArgs, screenCaptureArgs } from '../../media/screen.js';

const context = { file: 'x.json', peers: 3, topology: 'mesh' };

test('the page and the orchestrator name a received screen alike', () => {
  assert.equal(SCREEN_SUFFIX, PAGE_SCREEN_SUFFIX);
  assert.deepEqual(screenSources({ peers: ['p0', 'p2'] }), ['p0:screen', 'p2:screen']);
  assert.deepEqual(screenSources(null), []);
});

test('screenShare: the file\'s peers, the flag over them, each error naming where it came from', () => {
  assert.equal(screenShareOf(undefined, undefined, context), null);
  assert.deepEqual(screenShareOf({ peers: ['p2', 'p0'] }, undefined, context), { peers: ['p0', 'p2'] });
  assert.deepEqual(screenShareOf({ peers: ['p0'] }, ['p1'], context), { peers: ['p1'] });
  assert.throws(() => screenShareOf({ peers: ['p3'] }, undefined, context), /x\.json: screenShare\.peers: "p3" is not a peer of the main call: use one of p0, p1, p2/);
  assert.throws(() => screenShareOf(undefined, ['p0', 'p0'], context), /--screen-share: names a peer twice/);
  assert.throws(() => screenShareOf(undefined, [''], context), /--screen-share: "" is not a peer/);
  assert.throws(() => screenShareOf({ peers: [] }, undefined, context), /screenShare\.peers: must list the peers/);
  assert.throws(() => screenShareOf({ peer: 'p0' }, undefined, context), /x\.json: screenShare/);
  assert.throws(() => screenShareOf({ peers: ['p0'] }, undefined, { ...context, topology: 'sfu' }), /needs a mesh call; this scenario has topology sfu/);
});

test('the shipped screen-share scenarios load; --screen-share is checked against the scenario', () => {
  assert.deepEqual(loadScenario('screen-share').screenShare, { peers: ['p0'] });
  assert.deepEqual(loadScenario('screen-share-250').screenShare, { peers: ['p0'] });
  assert.deepEqual(loadScenario('screen-share', { screenShare: ['p1'] }).screenShare, { peers: ['p1'] });
  assert.equal(loadScenario('unconstrained').screenShare, null);
  assert.throws(() => loadScenario('unconstrained', { screenShare: ['p9'] }), /--screen-share: "p9" is not a peer of the main call/);
});

test('a screen source is the sender\'s screen, a remote its camera', () => {
  const media = { p0: { fps: 30, screen: { fps: 15 } }, p1: { fps: 30 } };
  assert.equal(sourceMedia(media, 'p0'), media.p0);
  assert.equal(sourceMedia(media, 'p0:screen'), media.p0.screen);
  assert.equal(sourceMedia(media, 'p1:screen'), undefined);
});

// A receiver's report: the camera (mid 1) and the screen (mid 2), each with its own counters.
const report = (ts, k) => [
  { id: 'IV', type: 'inbound-rtp', kind: 'video', mid: '1', timestamp: ts, bytesReceived: 250_000 * k, packetsReceived: 250 * k, packetsLost: 0,
    framesDecoded: 30 * k, frameWidth: 640, frameHeight: 360 },
  { id: 'IS', type: 'inbound-rtp', kind: 'video', mid: '2', timestamp: ts, bytesReceived: 50_000 * k, packetsReceived: 60 * k, packetsLost: 0,
    framesDecoded: 4 * k, frameWidth: 640, frameHeight: 360, qpSum: 4 * 20 * k },
  { id: 'OS', type: 'outbound-rtp', kind: 'video', mid: '2', timestamp: ts, bytesSent: 40_000 * k, framesSent: 3 * k, frameHeight: 360,
    mediaSourceId: 'MS', qualityLimitationDurations: { none: 0, bandwidth: k } },
  { id: 'OV', type: 'outbound-rtp', kind: 'video', mid: '1', timestamp: ts, bytesSent: 200_000 * k, framesSent: 30 * k, frameHeight: 360,
    mediaSourceId: 'MV', qualityLimitationDurations: { none: k } },
  { id: 'MV', type: 'media-source', kind: 'video', frames: 30 * k },
  { id: 'MS', type: 'media-source', kind: 'video', frames: 30 * k },
];

test('the screen\'s streams are its own section, not summed into the camera\'s', () => {
  const metrics = intervalMetrics(snapshotFromStats(report(1000, 1), '2'), snapshotFromStats(report(2000, 2), '2'));
  assert.equal(metrics.video.recvKbps, 2000);
  assert.equal(metrics.video.recvFps, 30);
  assert.equal(metrics.video.capturedFps, 30);
  assert.deepEqual(metrics.screen, {
    sendKbps: 320, recvKbps: 400, sentHeight: 360, sentFps: 3, recvWidth: 640, recvHeight: 360, recvFps: 4,
    qualityLimitationReason: 'bandwidth', qpPerFrame: 20,
  });
  // Without a screen m-line, every video stream is the camera's, as before.
  const camera = intervalMetrics(snapshotFromStats(report(1000, 1)), snapshotFromStats(report(2000, 2)));
  assert.equal(camera.video.recvKbps, 2400);
  assert.equal('screen' in camera, false);
});

test('a received screen\'s frame rate as seen and picture quality join its stats in the timeline', () => {
  const timeline = [{ t: 3, peer: 'p1', remote: 'p0', video: { recvKbps: 500 }, screen: { recvKbps: 120 } }];
  const perSecond = [
    { t: 3, peer: 'p1', remote: 'p0', video: { shownFps: 29, psnrDb: 33 } },
    { t: 3, peer: 'p1', remote: 'p0:screen', video: { shownFps: 5, psnrDb: 41.5, ssim: 0.99, glassToGlassMs: null } },
  ];
  const [entry] = withViewer(timeline, /** @type {any} */ (perSecond));
  assert.deepEqual(entry.video, { recvKbps: 500, shownFps: 29, psnrDb: 33 });
  assert.deepEqual(entry.screen, { recvKbps: 120, shownFps: 5, psnrDb: 41.5, ssim: 0.99 });
});

test('the slides are drawn below the frame code and made into a lossless WebM', () => {
  const args = screenArgs({ width: 640, height: 360, fps: 30 }, 10, 'out.y4m', '/fonts/f.ttf');
  const filter = args[args.indexOf('-i') + 1];
  assert.match(filter, /^color=c=0xf4f4f4:size=640x360:rate=30,/);
  // Every text line starts below the code strip (the top sixth, 60 rows at 360p).
  const tops = [...filter.matchAll(/:y=(\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]));
  assert.ok(tops.length >= 15 && tops.every((y) => y > 60), String(tops));
  assert.deepEqual(args.slice(-4), ['10', '-f', 'yuv4mpegpipe', 'out.y4m']);
  const webm = screenCaptureArgs('in.y4m', 'out.webm');
  assert.equal(webm[webm.indexOf('-lossless') + 1], '1');
  assert.equal(webm[webm.indexOf('-c:v') + 1], 'libvpx-vp9');
});
