// LiveKit's RoomService answers as a broken or hostile server might give them (a local HTTP server in its place):
// each is an error naming the call and where to look, never its text in a message or a result.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { HarnessError } from '../../orchestrator/lib/system/errors.js';
import { createRoom } from '../../orchestrator/sfu/livekit/room-service.js';

/** @type {(request: http.IncomingMessage, response: http.ServerResponse) => void} */
let answer = (_request, response) => { response.end('{}'); };
const server = http.createServer((request, response) => answer(request, response));
/** @type {{ url: string, apiKey: string, apiSecret: string }} */
let livekit;
before(async () => {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  livekit = { url: `http://127.0.0.1:${port}`, apiKey: 'k', apiSecret: 's' };
});
after(() => server.close());

const cases = /** @type {Array<[string, (request: http.IncomingMessage, response: http.ServerResponse) => void, RegExp]>} */ ([
  ['an HTTP error', (_q, r) => { r.statusCode = 500; r.end('<html>secret stack</html>'); }, /^LiveKit CreateRoom answered HTTP 500; its log/],
  ['text that is not JSON', (_q, r) => { r.end('<html>'); }, /^LiveKit CreateRoom answered something that is not JSON/],
  ['JSON without the room', (_q, r) => { r.end(JSON.stringify({ name: 'another-room' })); }, /answered without the room run-1/],
  ['an answer over 64 KiB', (_q, r) => { r.end(JSON.stringify({ name: 'run-1', pad: 'x'.repeat(70_000) })); }, /over 65536 bytes/],
]);

for (const [what, reply, message] of cases) {
  test(`a RoomService answering ${what} fails the room's creation naming the call`, async () => {
    answer = reply;
    await assert.rejects(createRoom(livekit, 'run-1', 4), (error) => {
      assert.match(String(/** @type {Error} */ (error).message), message);
      assert.doesNotMatch(String(/** @type {Error} */ (error).message), /secret stack|another-room|xxxx/);
      return true;
    });
  });
}

test('a room name LiveKit would not take is refused before any request', async () => {
  let asked = false;
  answer = (_q, r) => { asked = true; r.end('{}'); };
  await assert.rejects(createRoom(livekit, 'run 1/../x', 4), (error) => error instanceof HarnessError && /letters, digits, _ and - only/.test(error.message));
  assert.equal(asked, false);
});

test('a RoomService confirming the room returns its name', async () => {
  answer = (request, r) => {
    assert.match(String(request.headers.authorization), /^Bearer eyJ/);
    r.end(JSON.stringify({ name: 'run-1', sid: 'RM_x' }));
  };
  assert.equal(await createRoom(livekit, 'run-1', 4), 'run-1');
});
