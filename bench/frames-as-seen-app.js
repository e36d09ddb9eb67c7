// The `app` setup of bench/frames-as-seen.js: the run's own page (client-app/index.html, joined through the signaling
// server, its media through the relay emulator), so everything a run's page does is there: preview, audio, style,
// the frame reader on its camera and on the remote video, the 1 s getStats sampler once the call starts. With
// `drain`, the orchestrator's own frame-reader drains too (run/viewer-collector.js, once a second over DevTools, the
// captures written to disk), as in a run.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPeerSecrets, pageUrl } from '../orchestrator/lib/system/peer-secrets.js';
import { createViewerCollector } from '../orchestrator/run/viewer-collector.js';
import { startSignalingServer } from '../signaling/server.js';

const PEERS = ['p0', 'p1'];
const ROOM = 'bench-frames-as-seen';
const CONNECT_TIMEOUT_MS = 45_000;

/**
 * Both pages joined, connected and showing each other's video, the call started (the pages' samplers run); each
 * page's `window.bench` holds its connection and remote <video> for the bench's watchers.
 * @param {object} options
 * @param {(pageOrigin: string) => Promise<{ browser: import('puppeteer').Browser, page: import('puppeteer').Page }>} options.launch
 * @param {import('../orchestrator/emulators/contract.js').Emulator} options.emulator
 * @param {boolean} options.drain  the orchestrator's frame-reader drains, as in a run
 * @param {Array<() => Promise<unknown>>} options.closers  what to close afterwards, last first
 */
export async function openAppCall({ launch, emulator, drain, closers }) {
  const startedAtEpochMs = Date.now();
  const secrets = createPeerSecrets(PEERS);
  const { signalingHost: host, rewriteCandidate } = emulator;
  const signaling = await startSignalingServer({ host, rewriteCandidate, room: ROOM, secrets });
  closers.push(() => signaling.close());
  const peers = [];
  for (const name of PEERS) {
    const { browser, page } = await launch(new URL(signaling.httpUrl).origin);
    closers.push(() => browser.close());
    await page.goto(pageUrl(signaling.httpUrl, { peer: name, room: ROOM, signal: signaling.wsUrl }, String(secrets.get(name))), { waitUntil: 'load' });
    peers.push({ name, browser, page, sends: true });
  }
  for (const { page } of peers) {
    // any: client-app/app.js's page global
    await page.waitForFunction(() => [.../** @type {any} */ (window).testbed.connections.values()]
      .some(({ pc, videos }) => pc.connectionState === 'connected' && videos[0]?.videoHeight > 0), { timeout: CONNECT_TIMEOUT_MS });
    await page.evaluate(() => {
      // any: client-app/app.js's page global
      const [{ pc, videos }] = /** @type {any} */ (window).testbed.connections.values();
      // any: the bench's own page global, unknown to the DOM types
      /** @type {any} */ (window).bench = { pc, video: videos[0] };
    });
  }
  signaling.broadcast(ROOM, { type: 'start', mediaStartEpochMs: Date.now() });
  if (drain) {
    const runDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-frames-as-seen-'));
    const collector = createViewerCollector({
      pages: new Map(peers.map(({ name, page }) => [name, page])), peers: PEERS, runDir, changeTimesS: [], fps: 30,
      startedAtEpochMs, onRejected: (peer, reason) => console.log(`${peer}: drain rejected: ${reason}`),
    });
    await collector.start(Date.now());
    closers.push(async () => { await collector.stop(); rmSync(runDir, { recursive: true, force: true }); });
  }
  return peers;
}
