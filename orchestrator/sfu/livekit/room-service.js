// LiveKit's RoomService (Twirp over HTTP, JSON): the harness creates and deletes the run's room. Answers are bounded
// and checked field by field: a broken or hostile server's text never reaches result.json or a log.
import { readBoundedText } from '../../lib/input/bounded-body.js';
import { HarnessError } from '../../lib/system/errors.js';
import { accessToken } from './token.js';

const MAX_ANSWER_BYTES = 64 * 1024;
const REQUEST_TIMEOUT_MS = 5_000;
/** What LiveKit accepts as a room name, and what the harness makes (`run-<id>`). */
const ROOM_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * @param {{ url: string, apiKey: string, apiSecret: string }} server
 * @param {'CreateRoom'|'DeleteRoom'} method @param {Record<string, unknown>} body
 * @returns {Promise<unknown>}
 */
async function call(server, method, body) {
  const token = accessToken({ apiKey: server.apiKey, apiSecret: server.apiSecret, grant: { roomCreate: true }, nowS: Date.now() / 1000 });
  const response = await fetch(`${server.url}/twirp/livekit.RoomService/${method}`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await readBoundedText(response, MAX_ANSWER_BYTES, `LiveKit ${method}`);
  if (!response.ok) throw new HarnessError(`LiveKit ${method} answered HTTP ${response.status}; its log (<run>/livekit/livekit.log) says why`);
  try {
    return JSON.parse(text);
  } catch {
    throw new HarnessError(`LiveKit ${method} answered something that is not JSON; its log (<run>/livekit/livekit.log) says why`);
  }
}

/**
 * Creates the room; returns its name as the server confirms it.
 * @param {{ url: string, apiKey: string, apiSecret: string }} server @param {string} name @param {number} maxParticipants
 */
export async function createRoom(server, name, maxParticipants) {
  if (!ROOM_NAME.test(name)) throw new HarnessError(`LiveKit room name ${JSON.stringify(name)}: letters, digits, _ and - only`);
  const answer = await call(server, 'CreateRoom', { name, max_participants: maxParticipants, empty_timeout: 300 });
  const confirmed = answer && typeof answer === 'object' && 'name' in answer ? answer.name : undefined;
  if (confirmed !== name) throw new HarnessError(`LiveKit CreateRoom answered without the room ${name}; its log (<run>/livekit/livekit.log) says why`);
  return name;
}

/** @param {{ url: string, apiKey: string, apiSecret: string }} server @param {string} name */
export const deleteRoom = (server, name) => call(server, 'DeleteRoom', { room: name }).then(() => {});
