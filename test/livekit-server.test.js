// livekit-server (the second SFU) as the run's managed process, for real: built by `npm run setup`, started on free
// ports with its API secret only in a 0600 file, answering LiveKit's RoomService only with a token signed by that
// secret, and gone after close(), SIGINT or SIGKILL of the orchestrator. Run it alone on the machine.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LIVEKIT_SERVER_VERSION } from '../orchestrator/lib/system/paths.js';
import { EnvironmentError } from '../orchestrator/lib/system/errors.js';
import { onCleanup } from '../orchestrator/lib/system/shutdown.js';
import { startLivekit } from '../orchestrator/sfu/livekit/server.js';
import { accessToken } from '../orchestrator/sfu/livekit/token.js';
import { assertGoneAfterInterruptAndKill, assertGoneWithin } from './helpers/server-process.js';

const CHILD = fileURLToPath(new URL('./fixtures/livekit/start-livekit.js', import.meta.url));
/** @type {string} */
let root;
before(async () => { root = await mkdtemp(path.join(os.tmpdir(), 'wtb-livekit-')); });
after(async () => { await rm(root, { recursive: true, force: true }); });

/**
 * A RoomService call (Twirp JSON) with a token for the grant.
 * @param {{ url: string, apiKey: string }} server @param {string} secret @param {string} method @param {object} body
 */
async function roomService(server, secret, method, body) {
  const grant = { roomCreate: true, roomList: true };
  const token = accessToken({ apiKey: server.apiKey, apiSecret: secret, grant, nowS: Date.now() / 1000 });
  const response = await fetch(`${server.url}/twirp/livekit.RoomService/${method}`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
}

test('livekit-server starts on free loopback ports with its secret in a 0600 file, creates a room only for a token signed with that secret, and is gone after close()', async () => {
  const commands = [];
  const server = await startLivekit({ runDir: path.join(root, 'run'), iceAddress: '127.0.0.1', registerCleanup: onCleanup, logCommand: (record) => commands.push(record) });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.version, LIVEKIT_SERVER_VERSION);
    assert.equal(commands.length, 1);
    assert.equal(commands[0].ok, true);
    const cmdline = (await readFile(`/proc/${server.pid}/cmdline`, 'utf8')).split('\0').join(' ');
    assert.ok(!cmdline.includes(server.apiSecret) && !commands[0].cmd.includes(server.apiSecret), 'the API secret is on no command line');
    const dir = path.join(root, 'run', 'livekit');
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.equal((await stat(path.join(dir, 'livekit.yaml'))).mode & 0o777, 0o600);
    assert.equal((await stat(path.join(dir, 'livekit.log'))).mode & 0o777, 0o600);

    const created = await roomService(server, server.apiSecret, 'CreateRoom', { name: 'wtb-room' });
    assert.equal(created.status, 200, created.body);
    assert.equal(JSON.parse(created.body).name, 'wtb-room');
    const listed = await roomService(server, server.apiSecret, 'ListRooms', {});
    assert.deepEqual(JSON.parse(listed.body).rooms.map((/** @type {{ name: string }} */ room) => room.name), ['wtb-room']);
    const forged = await roomService(server, `${server.apiSecret}x`, 'ListRooms', {});
    assert.equal(forged.status, 401, 'a token signed with another secret is refused');
  } finally {
    await server.close();
  }
  await assertGoneWithin(server.pid, 3_000, 'livekit-server');
});

test('without the built livekit-server a run stops with an environment error naming npm run setup', async () => {
  await assert.rejects(
    startLivekit({ runDir: path.join(root, 'missing'), iceAddress: '127.0.0.1', registerCleanup: onCleanup, binary: path.join(root, 'no-such-livekit-server') }),
    (error) => error instanceof EnvironmentError && /npm run setup/.test(error.message) && /Go ≥ 1\.24/.test(error.message),
  );
});

test('livekit-server is gone after SIGINT of the orchestrator (its closer runs) and after SIGKILL (the kernel kills it)', async () => {
  await assertGoneAfterInterruptAndKill(CHILD, (name) => path.join(root, name), 'livekit-server', 7_000);
});
