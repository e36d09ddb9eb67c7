import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REMOTE_MILESTONES, SETUP_MILESTONES, setupBreakdown, setupByPath } from '../../orchestrator/lib/result/setup-breakdown.js';

const LAUNCH_MS = 1_790_000_000_000;

/**
 * The set-up events of one peer of a real unconstrained run (ms after its launch), as run.js and the page record them.
 * @param {string} peer @param {string} remote @param {number} offsetMs added to every time
 */
function peerEvents(peer, remote, offsetMs = 0) {
  const at = (ms) => LAUNCH_MS + offsetMs + ms;
  return [
    { type: 'launch-started', peer, epochMs: at(0) },
    { type: 'browser-launched', peer, epochMs: at(285) },
    { type: 'page-loaded', peer, epochMs: at(1094) },
    { type: 'joined', peer, epochMs: at(1101) },
    { type: 'negotiated', peer, remote, epochMs: at(1270) },
    { type: 'ice-state', peer, remote, state: 'checking', epochMs: at(1272) },
    { type: 'connection-state', peer, remote, state: 'connecting', epochMs: at(1274) },
    { type: 'media-ready', peer, video: { width: 1280 }, epochMs: at(1311) },
    { type: 'dtls-state', peer, remote, state: 'connecting', epochMs: at(1399) },
    { type: 'ice-state', peer, remote, state: 'connected', epochMs: at(1402) },
    { type: 'dtls-state', peer, remote, state: 'connected', epochMs: at(1402) },
    { type: 'connection-state', peer, remote, state: 'connected', epochMs: at(1402) },
    { type: 'first-rtp', peer, remote, epochMs: at(1487) },
    { type: 'first-frame', peer, remote, epochMs: at(1511) },
  ];
}

test('two peers: every milestone in ms since the peer\'s own launch, whatever order the events arrive in', () => {
  const events = [...peerEvents('p0', 'p1'), ...peerEvents('p1', 'p0', 2)].reverse();
  const { milestones, peers } = setupBreakdown({ events, peers: ['p0', 'p1'] });
  assert.deepEqual(milestones, SETUP_MILESTONES);
  const expected = {
    browserLaunched: 285, pageLoaded: 1094, joined: 1101, mediaReady: 1311, negotiated: 1270,
    iceConnected: 1402, dtlsConnected: 1402, firstRtp: 1487, firstFrame: 1511,
  };
  for (const [peer, remote, offsetMs] of /** @type {Array<[string, string, number]>} */ ([['p0', 'p1', 0], ['p1', 'p0', 2]])) {
    assert.equal(peers[peer].launchEpochMs, LAUNCH_MS + offsetMs);
    assert.deepEqual(peers[peer].sinceLaunchMs, expected);
    assert.deepEqual(Object.keys(peers[peer].remotes), [remote]);
    assert.deepEqual(peers[peer].remotes[remote], Object.fromEntries(REMOTE_MILESTONES.map((name) => [name, expected[name]])));
  }
});

test('ICE counts as connected at "connected" or "completed", DTLS only at "connected"; the earliest event wins', () => {
  const events = [
    { type: 'launch-started', peer: 'p0', epochMs: LAUNCH_MS },
    { type: 'ice-state', peer: 'p0', remote: 'p1', state: 'checking', epochMs: LAUNCH_MS + 100 },
    { type: 'ice-state', peer: 'p0', remote: 'p1', state: 'completed', epochMs: LAUNCH_MS + 300 },
    { type: 'ice-state', peer: 'p0', remote: 'p1', state: 'connected', epochMs: LAUNCH_MS + 200 },
    { type: 'dtls-state', peer: 'p0', remote: 'p1', state: 'connecting', epochMs: LAUNCH_MS + 250 },
    { type: 'dtls-state', peer: 'p0', remote: 'p1', state: 'failed', epochMs: LAUNCH_MS + 260 },
    { type: 'first-frame', peer: 'p0', remote: 'p1', epochMs: LAUNCH_MS + 900 },
    { type: 'first-frame', peer: 'p0', remote: 'p1', epochMs: LAUNCH_MS + 700 },
  ];
  const { sinceLaunchMs } = setupBreakdown({ events, peers: ['p0', 'p1'] }).peers.p0;
  assert.equal(sinceLaunchMs.iceConnected, 200);
  assert.equal(sinceLaunchMs.dtlsConnected, null);
  assert.equal(sinceLaunchMs.firstFrame, 700);
});

test('three peers: per remote, and for the peer the first remote to reach each milestone', () => {
  const events = [
    { type: 'launch-started', peer: 'p0', epochMs: LAUNCH_MS },
    { type: 'first-rtp', peer: 'p0', remote: 'p2', epochMs: LAUNCH_MS + 1200 },
    { type: 'first-frame', peer: 'p0', remote: 'p2', epochMs: LAUNCH_MS + 1250 },
    { type: 'first-rtp', peer: 'p0', remote: 'p1', epochMs: LAUNCH_MS + 1400 },
  ];
  const { sinceLaunchMs, remotes } = setupBreakdown({ events, peers: ['p0', 'p1', 'p2'] }).peers.p0;
  assert.deepEqual(Object.keys(remotes), ['p1', 'p2']);
  assert.equal(remotes.p1.firstRtp, 1400);
  assert.equal(remotes.p1.firstFrame, null, 'no frame from p1 yet');
  assert.equal(remotes.p2.firstFrame, 1250);
  assert.equal(sinceLaunchMs.firstRtp, 1200);
  assert.equal(sinceLaunchMs.firstFrame, 1250);
});

test('a run that failed early: milestones not reached are null, and without a launch every one is', () => {
  const events = [
    { type: 'launch-started', peer: 'p0', epochMs: LAUNCH_MS },
    { type: 'browser-launched', peer: 'p0', epochMs: LAUNCH_MS + 400 },
    { type: 'error', peer: 'p0', message: 'getUserMedia: NotFoundError', epochMs: LAUNCH_MS + 900 },
    { type: 'first-frame', peer: 'p1', remote: 'p0', epochMs: LAUNCH_MS + 1500 },
  ];
  const { peers } = setupBreakdown({ events, peers: ['p0', 'p1'] });
  assert.equal(peers.p0.sinceLaunchMs.browserLaunched, 400);
  assert.equal(peers.p0.sinceLaunchMs.firstFrame, null);
  assert.equal(peers.p1.launchEpochMs, null);
  const p1Times = Object.values(peers.p1.sinceLaunchMs);
  assert.ok(p1Times.length > 0 && p1Times.every((ms) => ms === null), JSON.stringify(peers.p1.sinceLaunchMs));
});

test('events of other peers, other remotes, or with no peer do not count', () => {
  const events = [
    { type: 'launch-started', peer: 'p0', epochMs: LAUNCH_MS },
    { type: 'first-frame', peer: 'p0', remote: 'p9', epochMs: LAUNCH_MS + 100 },
    { type: 'first-frame', peer: 'p9', remote: 'p0', epochMs: LAUNCH_MS + 100 },
    { type: 'joined', peer: null, epochMs: LAUNCH_MS + 100 },
    { type: 'rejected', peer: null, messageType: 'event', reason: 'x', epochMs: LAUNCH_MS + 100 },
    { type: 'first-frame', peer: 'p0', remote: 'p1', epochMs: LAUNCH_MS + 800 },
  ];
  const { peers } = setupBreakdown({ events, peers: ['p0', 'p1'] });
  assert.deepEqual(Object.keys(peers), ['p0', 'p1']);
  assert.equal(peers.p0.sinceLaunchMs.firstFrame, 800);
  assert.equal(peers.p0.sinceLaunchMs.joined, null);
  assert.deepEqual(Object.keys(peers.p0.remotes), ['p1']);
});

test('200 000 events of one milestone cannot make the breakdown throw: the earliest still wins', () => {
  const flood = Array.from({ length: 200_000 }, (_, i) => ({ type: 'first-frame', peer: 'p0', remote: 'p1', epochMs: LAUNCH_MS + 5000 + i }));
  const { peers } = setupBreakdown({ events: [...flood, ...peerEvents('p0', 'p1'), ...peerEvents('p1', 'p0')], peers: ['p0', 'p1'] });
  assert.equal(peers.p0.sinceLaunchMs.firstFrame, 1511);
  assert.equal(peers.p0.remotes.p1.firstFrame, 1511);
  assert.equal(peers.p1.sinceLaunchMs.firstFrame, 1511);
});

test('set-up by path: each connection\'s phases on the path ICE selected first; a connection without a pair or milestones is left out', () => {
  const events = [...peerEvents('p0', 'p1'), ...peerEvents('p1', 'p0', 2)];
  const setup = setupBreakdown({ events, peers: ['p0', 'p1'] });
  const rows = setupByPath(setup, [
    { peer: 'p0', remote: 'p1', paths: [{ label: 'relay/udp over TCP → host/udp', firstT: 9 }, { label: 'host/udp → host/udp', firstT: 1 }] },
    { peer: 'p1', remote: 'p0', paths: [] },
    { peer: 'p0', remote: 'sfu', paths: [{ label: 'host/udp → host/udp', firstT: 1 }] },
  ]);
  assert.deepEqual(rows, [{ peer: 'p0', remote: 'p1', path: 'host/udp → host/udp', negotiatedMs: 1270, iceMs: 132, dtlsMs: 0, firstFrameMs: 109, totalMs: 1511 }]);
});

test('set-up by path: a phase whose end was not reached is null, not a negative or a zero', () => {
  const events = peerEvents('p0', 'p1').filter((e) => e.type !== 'first-frame' && e.type !== 'dtls-state');
  const [row] = setupByPath(setupBreakdown({ events, peers: ['p0', 'p1'] }), [{ peer: 'p0', remote: 'p1', paths: [{ label: 'x', firstT: 1 }] }]);
  assert.equal(row.iceMs, 132);
  assert.equal(row.dtlsMs, null);
  assert.equal(row.firstFrameMs, null);
  assert.equal(row.totalMs, null);
});
