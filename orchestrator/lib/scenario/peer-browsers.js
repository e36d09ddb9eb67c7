// Which browser each peer runs, and which timeline fields a browser's getStats() left empty (pure).
import { InputError } from '../system/errors.js';
import { METRICS } from '../result/metric-catalogue.js';
import { describeValue, expectObject } from '../input/validate.js';

/**
 * The browsers a peer can run: Chromium reads the media through its fake devices, Firefox plays it in a <video>.
 * @typedef {'chromium'|'firefox'} BrowserKind
 */
export const BROWSER_KINDS = ['chromium', 'firefox'];
export const DEFAULT_BROWSER = 'chromium';

/**
 * The scenario's `browsers`: a browser for some peers; every other peer runs the run's (--browser).
 * @param {unknown} raw @param {number} peers @param {string} file
 * @returns {Record<string, string>}
 */
export function validatePeerBrowsers(raw, peers, file) {
  if (raw === undefined) return {};
  const browsers = expectObject(raw, `${file}: browsers`, Array.from({ length: peers }, (_, i) => `p${i}`),
    { what: `an object of peer names to browsers, e.g. {"p1": "firefox"}` });
  for (const [peer, kind] of Object.entries(browsers)) {
    if (!BROWSER_KINDS.includes(/** @type {string} */ (kind))) {
      throw new InputError(`${file}: browsers.${peer}: ${describeValue(kind)} is not a browser; use one of ${BROWSER_KINDS.join(', ')}`);
    }
  }
  return /** @type {Record<string, string>} */ ({ ...browsers });
}

/**
 * Every peer's browser: the scenario's choice for that peer, else the run's.
 * @param {string[]} peers @param {Record<string, string>} perPeer  validated (validatePeerBrowsers)
 * @param {string} [runBrowser]  --browser
 * @returns {Record<string, BrowserKind>}
 */
export function peerBrowsers(peers, perPeer = {}, runBrowser = DEFAULT_BROWSER) {
  if (!BROWSER_KINDS.includes(runBrowser)) throw new InputError(`--browser ${runBrowser}: use one of ${BROWSER_KINDS.join(', ')}`);
  return Object.fromEntries(peers.map((peer) => [peer, /** @type {BrowserKind} */ (perPeer[peer] ?? runBrowser)]));
}

/**
 * Per-second fields a sender fills (they need media going out): the catalogue's `side: 'sender'` metrics by field name
 * (video.sendKbps and audio.sendKbps are both `sendKbps`), and the sender's text fields, which are not metrics.
 * Every other field needs media coming in.
 */
export const SENDER_FIELDS = new Set([
  ...METRICS.filter((metric) => metric.side === 'sender').map((metric) => metric.path.split('.').at(-1)),
  'qualityLimitationReason', 'encoderImplementation',
]);
// A shared screen's streams (lib/media/screen-share.js) are judged like the camera's.
const KINDS = ['video', 'audio', 'screen'];

/**
 * The timeline fields a peer's browser never filled although the media they describe flowed: null in every one of
 * its samples that had that media (video or audio, sent or received at > 0 kbps) and present in none. A field is
 * judged only by samples where it could have had a value, so a peer that only receives lacks no sender field.
 * `lossPct` and the like are null when no packet arrived: those seconds do not count.
 * any: getStats fields as the pages reported them, which depend on the browser
 * @param {Array<Record<string, any>>} samples  one peer's timeline entries
 * @returns {string[]} metric paths ('video.qualityLimitationReason', 'availableOutgoingKbps'), sorted
 */
export function missingTimelineFields(samples) {
  /** @type {Map<string, { seen: boolean, filled: boolean }>} */
  const fields = new Map();
  /** @param {string} path @param {boolean} flowing @param {unknown} value */
  const note = (path, flowing, value) => {
    if (!flowing) return;
    const field = fields.get(path) ?? { seen: false, filled: false };
    field.seen = true;
    field.filled ||= value !== null && value !== undefined;
    fields.set(path, field);
  };
  for (const sample of samples) {
    const sending = KINDS.some((kind) => sample[kind]?.sendKbps > 0);
    for (const kind of KINDS) {
      const media = sample[kind] ?? {};
      const flows = { out: media.sendKbps > 0, in: media.recvKbps > 0 };
      for (const [name, value] of Object.entries(media)) note(`${kind}.${name}`, SENDER_FIELDS.has(name) ? flows.out : flows.in, value);
    }
    const receiving = KINDS.some((kind) => sample[kind]?.recvKbps > 0);
    for (const [name, value] of Object.entries(sample)) {
      if (KINDS.includes(name) || ['t', 'peer', 'remote', 'intervalS', 'data'].includes(name)) continue;
      note(name, SENDER_FIELDS.has(name) ? sending : receiving, value);
    }
  }
  return [...fields].filter(([, { seen, filled }]) => seen && !filled).map(([path]) => path).sort();
}
