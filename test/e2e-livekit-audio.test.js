// Audio quality through LiveKit (issue 39): three real Chromium peers in a real livekit-server room on the relay,
// 360p30, --audio-quality speech. livekit-client hands each page its subscribed audio tracks
// (client-app/livekit-session.js), the page records what it plays out of each, and the orchestrator scores every
// subscriber's recording of every publisher with ViSQOL. p1 sits behind 50 % random loss on its downlink from 1 s on, so the
// score must follow the network per subscriber, not only exist (livekit-client sends Opus with RED, which at 30 % loss
// kept p1 within 0.2 of the open subscribers in one of two runs). About 70 s; run it alone:
//   node --test test/e2e-livekit-audio.test.js
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pidsMentioning, runScenarioCli, tempDir } from './helpers/cli.js';

const PEERS = ['p0', 'p1', 'p2'];

test('LiveKit with --audio-quality: every subscriber\'s recording of every publisher scored, the lossy downlink\'s clearly lower', { timeout: 240_000 }, async (t) => {
  const file = path.join(tempDir(), 'sfu-3-audio.json');
  writeFileSync(file, JSON.stringify({
    name: 'sfu-3-audio', description: 'sfu-3 with p1 behind 50 % loss on its downlink, audio scored', durationS: 18, warmupS: 6,
    // From 1 s into the call: at 50 % from the start, p1's ICE and DTLS handshake with LiveKit failed once in CI.
    peers: 3, topology: 'sfu', network: { schedule: [{ at: 1, links: ['p1.down'], set: { lossPct: 50 } }] },
  }));
  const run = await runScenarioCli(file, ['--sfu', 'livekit', '--emulator', 'relay', '--video', '360p30', '--audio-quality', 'speech']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { environment, audio, summary, events } = run.result;
  assert.equal(environment.sfu.name, 'livekit');
  assert.ok(audio, 'result.json has no audio section');
  assert.equal(audio.scorer.available, true, audio.scorer.reason);
  assert.equal(audio.failure, null);
  assert.deepEqual(events.filter((/** @type {any} */ e) => e.type === 'rejected' && e.messageType === 'audio-drain'), []);

  // One scored stream per subscriber and publisher: 3 × 2, each with its window [6, 16] s scored.
  const pairs = audio.streams.map((/** @type {any} */ s) => `${s.remote}->${s.peer}`).sort();
  assert.deepEqual(pairs, PEERS.flatMap((to) => PEERS.filter((from) => from !== to).map((from) => `${from}->${to}`)).sort());
  /** @type {Record<string, number>} */
  const mos = {};
  for (const stream of audio.streams) {
    const scored = stream.windows.filter((/** @type {any} */ w) => w.mosLqo !== null);
    assert.equal(scored.length, 1, `${stream.remote} → ${stream.peer}: ${JSON.stringify(stream.windows)}`);
    assert.ok(scored[0].correlation > 0.5, `${stream.remote} → ${stream.peer}: envelope correlation ${scored[0].correlation}`);
    mos[`${stream.remote}->${stream.peer}`] = stream.mosLqo.mean;
  }
  const scores = JSON.stringify(mos);
  t.diagnostic(`MOS-LQO per publisher->subscriber: ${scores}`);
  // The open subscribers hear both publishers well; p1 hears both clearly worse.
  for (const key of ['p1->p0', 'p2->p0', 'p0->p2', 'p1->p2']) assert.ok(mos[key] > 3.8, scores);
  for (const key of ['p0->p1', 'p2->p1']) assert.ok(mos[key] < Math.min(mos['p1->p0'], mos['p2->p0']) - 0.2, scores);
  // Per subscriber in the summary (the gate's per-run value comes from there), p1's lowest.
  const perPeer = Object.fromEntries(PEERS.map((peer) => [peer, summary.peers[peer]['audio.mosLqo']?.mean]));
  assert.deepEqual(PEERS.filter((peer) => typeof perPeer[peer] !== 'number'), [], JSON.stringify(perPeer));
  assert.ok(perPeer.p1 < perPeer.p0 && perPeer.p1 < perPeer.p2, JSON.stringify(perPeer));
  assert.deepEqual(pidsMentioning(run.out), [], 'livekit-server is gone');
});
