/**
 * The Janus API and Admin API over HTTP: one request helper, and the VideoRoom room creation a run does before
 * its peers join.
 */
import { randomBytes } from 'node:crypto';
import { HarnessError } from '../../lib/system/errors.js';

const REQUEST_TIMEOUT_MS = 5_000;

/**
 * POSTs one Janus request (a transaction id added) and returns the answer; a Janus error answer throws.
 * @param {string} url  the API or Admin API endpoint, with /<session>[/<handle>] when the request needs them
 * @param {Record<string, unknown>} body
 * @param {string} [apiSecret]  the run's API secret (Janus API requests; the Admin API's goes in the body as admin_secret)
 * @returns {Promise<any>}  any: Janus's JSON has no published type
 */
export async function janusPost(url, body, apiSecret) {
  const transaction = randomBytes(6).toString('hex');
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, transaction, ...(apiSecret ? { apisecret: apiSecret } : {}) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  /** @type {any} any: Janus's JSON has no published type */
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new HarnessError(`Janus ${url} answered ${body.janus} with HTTP ${response.status} and no JSON: ${text.slice(0, 200)}`);
  }
  if (answer.janus === 'error' || !response.ok) {
    throw new HarnessError(`Janus ${url} refused ${body.janus}: ${answer.error?.reason ?? `HTTP ${response.status}`} (code ${answer.error?.code ?? '-'})`);
  }
  return answer;
}

/**
 * Creates a VideoRoom room through a short-lived session.
 * @param {{apiUrl: string, apiSecret: string}} janus  e.g. http://127.0.0.1:8088/janus, and its secret
 * @param {{room: number, publishers: number, bitrateBps?: number, description?: string, videoCodecs?: string[],
 *   videoSvc?: boolean}} options
 *   bitrateBps: the publishers' REMB cap (VideoRoom's `bitrate`; 0 or absent: no cap); videoCodecs: the codecs the
 *   room accepts, preferred first (VideoRoom's `videocodec`; empty or absent: its default, VP8); videoSvc: VideoRoom
 *   parses VP9 SVC and forwards each subscriber the layers it asks for (`video_svc`; a VP9-only room, or Janus ignores
 *   it; Janus 1.1.2 ignores it always: scenarios/sfu-svc-3.json's reference notes)
 * @returns {Promise<number>} the room id
 */
export async function createVideoRoom({ apiUrl, apiSecret }, {
  room, publishers, bitrateBps = 0, description = 'webrtc-testbed', videoCodecs = [], videoSvc = false,
}) {
  const sessionUrl = `${apiUrl}/${(await janusPost(apiUrl, { janus: 'create' }, apiSecret)).data.id}`;
  try {
    const handleUrl = `${sessionUrl}/${(await janusPost(sessionUrl, { janus: 'attach', plugin: 'janus.plugin.videoroom' }, apiSecret)).data.id}`;
    const answer = await janusPost(handleUrl, {
      janus: 'message',
      body: {
        request: 'create', room, publishers, bitrate: bitrateBps, description, permanent: false,
        ...(videoCodecs.length ? { videocodec: videoCodecs.join(',') } : {}),
        ...(videoSvc ? { video_svc: true } : {}),
      },
    }, apiSecret);
    const data = answer.plugindata?.data;
    if (data?.videoroom !== 'created') throw new HarnessError(`Janus VideoRoom did not create room ${room}: ${data?.error ?? JSON.stringify(data)}`);
    return data.room;
  } finally {
    await janusPost(sessionUrl, { janus: 'destroy' }, apiSecret).catch(() => {});
  }
}
