// Evaluates the `getstats` npm package on this Chromium in a real call, next to our standard-stats sampler.
// README "why not the getstats package" states the finding this test checks; if the package starts returning
// stats here, this test fails and the decision must be revisited.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { ensureMedia } from '../media/generate.js';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { launchPeer } from '../orchestrator/run/browsers.js';
import { startSignalingServer } from '../signaling/server.js';

const getstatsFile = createRequire(import.meta.url).resolve('getstats');
let signaling;
const peers = [];

before(async () => {
  const media = await ensureMedia('360p30');
  signaling = await startSignalingServer();
  const connected = new Promise((resolve) => {
    signaling.events.on('event', (e) => e.type === 'first-frame' && e.peer === 'p0' && resolve());
  });
  for (const peer of ['p0', 'p1']) {
    const url = `${signaling.httpUrl}?${new URLSearchParams({ peer, room: 'getstats', signal: signaling.wsUrl })}`;
    peers.push(await launchPeer({ executablePath: resolveBrowserPath().path, media, url }));
  }
  await connected;
});

after(async () => {
  for (const { browser } of peers) await browser.close();
  await signaling?.close();
});

test('getstats 1.2 returns no stats on this Chromium (legacy callback getStats) while standard getStats() does', async () => {
  const { page } = peers[0];
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.addScriptTag({ path: getstatsFile });
  const outcome = await page.evaluate(() => new Promise((resolve) => {
    // any: in-page globals, the app's (client-app/app.js) and the getstats package's script tag
    const { testbed, getStats } = /** @type {any} */ (window);
    const { pc } = testbed.connections.get('p1');
    const reports = [];
    getStats(pc, (result) => reports.push({ videoBytesSent: result.video?.bytesSent, sendWidth: result.resolutions?.send?.width }), 1000);
    setTimeout(async () => {
      const standard = [...(await pc.getStats()).values()].find((s) => s.type === 'outbound-rtp' && s.kind === 'video');
      resolve({ reports, standardBytesSent: standard?.bytesSent ?? 0, standardWidth: standard?.frameWidth ?? null });
    }, 3500);
  }));
  assert.ok(outcome.standardBytesSent > 0, 'standard getStats() sees the video being sent');
  // 640 wide, or scaled down while the encoder ramps up
  assert.ok(outcome.standardWidth > 0 && outcome.standardWidth <= 640, `standard send width ${outcome.standardWidth}`);
  assert.deepEqual(outcome.reports, [], 'getstats produced reports: re-evaluate it and update the README');
  assert.ok(pageErrors.some((message) => /getStats.*parameter 1 is not of type 'MediaStreamTrack'/.test(message)), `page errors: ${pageErrors.join('; ')}`);
});
