// A real SFU call under attack (issue 11, the SFU side of test/e2e-hostile.test.js): while three Chromium peers call
// through Janus VideoRoom and the relay (sfu-3 cut to 20 s), another local process hits the run's signaling
// server from the moment it listens until the run ends: offers and answers misdirected to and from 'sfu', bogus
// candidates for the SFU, SDPs over the size cap, joins as 'sfu' and as peers of the call, forged samples of the SFU
// connection, stats floods, and a seeded fuzz aimed at 'sfu'. Janus must answer throughout; the run must end
// `passed` with every peer's samples of its SFU connection and of both forwarded streams, the rejections in its
// events, none of the forged data in its timeline, and Janus gone afterwards. The call's 20 s hold the attacks (a
// flood of ~4 s, then ~8 s of fuzz beside the rounds) with room to spare; no rate has to settle. About 30 s; run it
// alone:
//   node --test test/e2e-hostile-sfu.test.js
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { JOIN_REFUSED, MAX_MESSAGE_BYTES } from '../signaling/server.js';
import { pidsMentioning, processesTagged, runCli, runTag, tempDir } from './helpers/cli.js';
import { tryJoin, wsClient } from './helpers/signaling-clients.js';
import { fuzzCases, realSample, sendFuzz } from './helpers/signaling-fuzz.js';

const PEERS = ['p0', 'p1', 'p2'];
// Forged samples carry this value; it must not appear anywhere in the timeline.
const MARKER_KBPS = 123456;
const SDP = 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\n';
/** An offer to the SFU a little over the server's 64 KiB message cap (under the frame limit, so it gets a reply). */
const HUGE_OFFER = { type: 'offer', to: 'sfu', sdp: `${SDP}a=x-padding:${'x'.repeat(MAX_MESSAGE_BYTES + 100 - SDP.length)}` };
const BOGUS_CANDIDATES = [
  'candidate:1 1 udp 2122194687 127.0.0.1 70000 typ host',
  'candidate:2 1 udp 2122194687 8.8.8.8 3478 typ host',
  'candidate:3 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active',
  'candidate:4 1 udp 41885439 10.0.0.1 50000 typ relay raddr 0.0.0.0 rport 0',
  `candidate:${'9'.repeat(5000)} 1 udp 1 127.0.0.1 1 typ host`,
  'not a candidate at all',
];


/** @param {string} apiUrl  whether Janus answers `info` now */
async function janusAnswers(apiUrl) {
  try {
    const info = await (await fetch(`${apiUrl}/info`, { signal: AbortSignal.timeout(2000) })).json();
    return info.janus === 'server_info';
  } catch {
    return false;
  }
}

/**
 * Sends each message on an unjoined socket and expects an error reply for each.
 * @param {string} wsUrl @param {object[]} messages
 */
async function refusedOneByOne(wsUrl, messages) {
  const client = await wsClient(wsUrl);
  for (const message of messages) {
    client.send(message);
    const reply = await client.next();
    assert.equal(reply.type, 'error', `${JSON.stringify(message).slice(0, 200)} got ${JSON.stringify(reply)}`);
  }
  await client.close();
}

/** One round of SFU-shaped hostile messages. @param {string} wsUrl @param {string} room */
async function attackRound(wsUrl, room) {
  const forged = { ...realSample({ t: 5, peer: 'p0', remote: 'sfu' }), video: { recvKbps: MARKER_KBPS, sendKbps: MARKER_KBPS } };
  await refusedOneByOne(wsUrl, [
    { type: 'offer', to: 'sfu', sdp: SDP },
    { type: 'answer', to: 'sfu', sdp: SDP },
    { type: 'answer', from: 'sfu', to: 'p0', sdp: SDP },
    { type: 'offer', from: 'sfu', to: 'p1', sdp: SDP },
    HUGE_OFFER,
    ...BOGUS_CANDIDATES.map((candidate) => ({ type: 'candidate', to: 'sfu', candidate: { candidate, sdpMid: '0', sdpMLineIndex: 0 } })),
    { type: 'stats', sample: forged },
    { type: 'event', event: { type: 'connection-state', peer: 'p0', epochMs: Date.now(), remote: 'sfu', state: 'failed' } },
  ]);
  // Joins as the SFU, as a peer the call does not have and as each of its peers (before and after the pages are in):
  // without their secrets, each hears only "join refused" and its socket is closed.
  for (const peer of ['sfu', 'p3', ...PEERS]) {
    const { reply, closed } = await tryJoin(wsUrl, { room, peer });
    assert.deepEqual(reply, { type: 'error', error: JOIN_REFUSED, inReplyTo: 'join' }, `join as ${peer}`);
    assert.equal(closed.code, 1008, `join as ${peer}`);
  }
  const intruder = await wsClient(wsUrl);
  intruder.send({ type: 'answer', to: 'sfu', sdp: SDP });
  assert.match((await intruder.next()).error, /join a room before sending "answer"/);
  await intruder.close();
}

/**
 * A socket that sends forged samples of the SFU connection far over the message cap until the server closes it.
 * @param {string} wsUrl @returns {Promise<{ code: number, reason: string }>}
 */
async function statsFlood(wsUrl) {
  const flooder = await wsClient(wsUrl);
  const sample = JSON.stringify({ type: 'stats', sample: { ...realSample({ peer: 'p1', remote: 'sfu' }), video: { recvKbps: MARKER_KBPS } } });
  for (let i = 0; i < 40 && flooder.socket.readyState === flooder.socket.OPEN; i++) {
    for (let j = 0; j < 100; j++) flooder.socket.send(sample);
    flooder.pending();
    await sleep(200);
  }
  const closed = await Promise.race([flooder.closed, sleep(3000).then(() => ({ code: -1, reason: 'still open' }))]);
  flooder.socket.terminate();
  return closed;
}

test('an SFU call attacked on its signaling server all along ends passed with every peer\'s samples; Janus is up until tear-down', { timeout: 300_000 }, async () => {
  const out = tempDir('wtb-hostile-sfu-');
  const { tag, env } = runTag();
  const state = { wsUrl: '', room: '', apiUrl: '', callUp: false, ending: false };
  /** @type {Promise<{ rounds: number, janusDown: number, floodClose: { code: number, reason: string }, fuzz: { sent: number } }>|null} */
  let attacking = null;
  let rounds = 0;
  let janusDown = 0;
  /** Janus answers between attacks for as long as the call lasts (its tear-down comes after). */
  const checkJanus = async () => { if (!(await janusAnswers(state.apiUrl)) && !state.ending) janusDown++; };
  const attackAll = async () => {
    // The run records its first 200 rejections one by one: each kind of attack lands once before the fuzz and the
    // flood fill that record, and keeps coming (counted only) until the call ends.
    await attackRound(state.wsUrl, state.room);
    while (!state.callUp && !state.ending) {
      await refusedOneByOne(state.wsUrl, [{ type: 'offer', to: 'sfu', sdp: SDP }]);
      await checkJanus();
      await sleep(1000);
    }
    await attackRound(state.wsUrl, state.room);
    // Its own refusals fill the run's record of rejections (200 a second), so its end is read from the socket.
    const floodClose = await statsFlood(state.wsUrl);
    const fuzz = sendFuzz(state.wsUrl, fuzzCases({ seed: 1100, count: 1500, room: state.room, peer: 'p0', remote: 'sfu' }), { lanes: [null, null], perSecond: 100 });
    while (!state.ending) {
      try {
        await attackRound(state.wsUrl, state.room);
      } catch (error) {
        // The server closes with the call: a round cut short by the tear-down is the end, not a failure.
        await sleep(2000);
        if (state.ending) break;
        throw error;
      }
      rounds++;
      await checkJanus();
      await sleep(300);
    }
    return { rounds, janusDown, floodClose, fuzz: await fuzz };
  };
  const run = await runCli(['scenario', 'sfu-3', '--duration', '20', '--warmup', '6', '--video', '360p30', '--out', out], {
    env,
    onOutput: (text) => {
      state.apiUrl ||= /janus: (http:\/\/\S+\/janus), media on/.exec(text)?.[1] ?? '';
      state.callUp ||= /call started/.test(text);
      // The last progress line ([20/20 s]) comes at the end of the call, before the tear-down stops Janus.
      state.ending ||= /\[(\d+)\/\1 s\]/.test(text);
      const signaling = /signaling: (ws:\/\/\S+) room (\S+)/.exec(text);
      if (attacking || !signaling || !state.apiUrl) return;
      [, state.wsUrl, state.room] = signaling;
      attacking = attackAll();
      attacking.catch(() => {}); // awaited below; a failure is reported there
    },
  });
  state.ending = true;
  const output = `${run.stdout}\n${run.stderr}`;
  assert.ok(attacking, `the run never logged Janus and its signaling server:\n${output}`);
  const attack = await attacking;
  assert.equal(run.code, 0, output);
  assert.ok(attack.rounds >= 10, `only ${attack.rounds} attack rounds`);
  assert.equal(attack.janusDown, 0, 'Janus stopped answering during the call');
  assert.deepEqual(attack.floodClose, { code: 1008, reason: 'over 200 messages/s for 3 s' }, 'the stats flood was cut off');
  assert.equal(attack.fuzz.sent, 1500);

  const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'));
  assert.equal(result.status, 'passed', JSON.stringify(result.errors));
  assert.deepEqual(result.errors, []);
  const { timeline, scenario, sfu, resources, events } = result;
  for (const entry of timeline) {
    assert.ok(entry.video?.recvKbps !== MARKER_KBPS && entry.video?.sendKbps !== MARKER_KBPS, `a forged sample reached the timeline: ${JSON.stringify(entry)}`);
  }
  // Samples from every peer: its publisher connection to the SFU and each forwarded stream, with frames.
  const window = timeline.filter((entry) => entry.t > scenario.warmupS);
  for (const peer of PEERS) {
    const mine = window.filter((entry) => entry.peer === peer);
    assert.deepEqual([...new Set(mine.map((entry) => entry.remote))].sort(), [...PEERS.filter((p) => p !== peer), 'sfu'].sort(), `${peer}'s connections`);
    for (const remote of PEERS.filter((p) => p !== peer)) {
      const frames = mine.filter((entry) => entry.remote === remote && (entry.video?.recvFps ?? 0) > 0);
      assert.ok(frames.length >= (scenario.durationS - scenario.warmupS) / 2, `${peer} shows frames from ${remote} in only ${frames.length} seconds`);
    }
  }
  assert.ok(!events.some((e) => e.type === 'connection-state' && e.state === 'failed'), 'a forged connection failure was recorded');

  // Janus up until tear-down: its Admin API read and its process sampled to the end of the call, and gone afterwards.
  assert.equal(sfu.unavailable, null);
  const lastS = (rows) => Math.max(...rows.map((row) => row.t));
  assert.ok(lastS(sfu.rows) >= scenario.durationS - 1, `Janus's Admin API last read at ${lastS(sfu.rows)} s of ${scenario.durationS}`);
  assert.ok(lastS(resources.rows.filter((row) => row.process === 'janus')) >= scenario.durationS - 1, 'Janus sampled to the end of the call');
  assert.deepEqual(pidsMentioning(path.join(out, 'janus')), [], 'Janus still running after the run');
  assert.equal(await janusAnswers(/janus: (http:\/\/\S+\/janus), media on/.exec(output)[1]), false, 'Janus\'s API still answers after the run');

  const reasons = events.filter((e) => e.type === 'rejected').map((e) => e.reason);
  for (const expected of [
    /^join a room before sending "offer"/,
    /^join a room before sending "answer"/,
    /^join a room before sending "candidate"/,
    /^join a room before sending "stats"/,
    /^join a room before sending "event"/,
    /^message of \d+ bytes is over the 65536-byte limit/,
    /^join refused: peer "sfu" is not expected; connection closed$/,
    /^join refused: peer "p3" is not expected; connection closed$/,
    /^join refused: no secret for "p0"; connection closed$/,
    /^\d+ more rejected messages, not recorded one by one$/,
  ]) {
    assert.ok(reasons.some((reason) => expected.test(reason)), `no rejection matching ${expected} in:\n${[...new Set(reasons)].slice(0, 60).join('\n')}`);
  }
  const rejected = events.filter((e) => e.type === 'rejected');
  assert.ok(rejected.length > 0 && rejected.every((e) => e.peer === null), 'rejections, none attributed to a real peer');
  let left = processesTagged(tag);
  for (let waitedMs = 0; left.length && waitedMs < 15_000; waitedMs += 500) {
    await sleep(500);
    left = processesTagged(tag);
  }
  assert.deepEqual(left, [], 'processes of the run still running');
});
