// Screen share (pure): which peers of a mesh call send a screen beside their camera (the scenario's `screenShare`, the
// run's --screen-share), and how a received screen is named where the camera's remote name would be: its frames are
// source `<remote>:screen` (client-app/screen-share.js), its per-second values the `screen` object of the camera's
// timeline entry. Format: docs/scenario-format.md "Screen share".
import { InputError } from '../system/errors.js';
import { describeValue, expectObject } from '../input/validate.js';

/** What a received screen's frames are filed under: client-app/screen-share.js SCREEN_SUFFIX (a unit test checks they agree). */
export const SCREEN_SUFFIX = ':screen';

/** @typedef {{ peers: string[] }} ScreenShare  the main-call peers that send a screen */

/**
 * The scenario's `screenShare` ({ "peers": ["p0"] }), or the flag's list (--screen-share p0,p1) over it; null: none.
 * @param {unknown} raw @param {string[]|undefined} flag
 * @param {{ file: string, peers: number, topology: string }} context  peers: the main call's
 * @returns {ScreenShare|null}
 */
export function screenShareOf(raw, flag, { file, peers, topology }) {
  if (flag === undefined && (raw === undefined || raw === null)) return null;
  const where = flag === undefined ? `${file}: screenShare.peers` : '--screen-share';
  const list = flag ?? expectObject(raw, `${file}: screenShare`, ['peers'], { what: 'an object like { "peers": ["p0"] }' }).peers;
  const names = Array.from({ length: peers }, (_, i) => `p${i}`);
  if (!Array.isArray(list) || list.length === 0) throw new InputError(`${where}: must list the peers that share a screen, e.g. ["p0"]; got ${describeValue(list)}`);
  for (const peer of list) {
    if (!names.includes(peer)) throw new InputError(`${where}: ${describeValue(peer)} is not a peer of the main call: use one of ${names.join(', ')}`);
  }
  if (new Set(list).size !== list.length) throw new InputError(`${where}: names a peer twice (${list.join(', ')})`);
  // The screen is a second m-line of each peer-to-peer connection; an SFU publishes one camera per page here.
  if (topology !== 'mesh') throw new InputError(`${where}: screen share needs a mesh call; this scenario has topology ${topology}`);
  return { peers: [...list].sort() };
}

/** The frame sources of the received screens. @param {ScreenShare|null} screenShare */
export const screenSources = (screenShare) => (screenShare?.peers ?? []).map((peer) => `${peer}${SCREEN_SUFFIX}`);

/**
 * The sender's video for a frame source: a remote's camera, or for `<remote>:screen` its screen (a `screen` of the
 * same shape, ensureRunMedia's).
 * @template {object} M
 * @param {Record<string, M>} media  each sending peer's media
 * @param {string} source
 * @returns {M|undefined}
 */
export function sourceMedia(media, source) {
  if (!source.endsWith(SCREEN_SUFFIX)) return media[source];
  return /** @type {{ screen?: M }|undefined} */ (media[source.slice(0, -SCREEN_SUFFIX.length)])?.screen;
}
