/**
 * Janus's own view of the call, once a second: every handle's media rows from its Admin API (janus-admin.js), named by
 * the page and the feed the bridge attached the handle for. Beside the browsers' getStats() it tells the two sides of
 * each leg apart: what a publisher's uplink delivered to Janus, and what Janus forwarded down to each subscriber.
 */
import { readHandleRows } from './janus-admin.js';

/**
 * @typedef {object} SfuRow  one media stream of one handle in one reading
 * @property {number} epochMs   when the reading started
 * @property {string} peer      the browser at the handle's other end
 * @property {string} feed      whose published stream it is: the peer's own on its publisher handle, the remote's on a subscription
 * @property {'publisher'|'subscriber'} role
 * @property {'audio'|'video'} kind
 * @property {'fromPeer'|'toPeer'} direction  fromPeer: the peer's uplink into Janus; toPeer: Janus forwarding down to it
 * @property {number} bitrateKbps   Janus's bytes in the last second (RTP headers included, no UDP/IP)
 * @property {number} packets       total so far in that direction
 * @property {number|null} nacks    total so far
 * @property {number|null} retransmissions  total so far
 * @property {number|null} rttMs
 * @property {number} lost          total so far
 * @property {number|null} rembCapKbps
 */

/**
 * Names Janus's handle rows by the bridge's handle owners (pure). A handle the bridge did not attach (none in a run's
 * own Janus, but a reading can race a handle's attach) is left out.
 * @param {import('./janus-admin.js').HandleRow[]} handleRows
 * @param {(handleId: number) => import('./bridge.js').HandleOwner|undefined} ownerOf
 * @param {number} epochMs
 * @returns {SfuRow[]}
 */
export function sfuRows(handleRows, ownerOf, epochMs) {
  return handleRows.flatMap((row) => {
    const owner = ownerOf(row.handleId);
    if (!owner) return [];
    // Janus's own ids and names (session, handle, room, feed id, display) say nothing the owner does not.
    const { kind, direction, bitrateKbps, packets, nacks, retransmissions, rttMs, lost, rembCapKbps } = row;
    return [{
      epochMs, peer: owner.peer, feed: owner.feed, role: owner.role, kind, direction,
      bitrateKbps, packets, nacks, retransmissions, rttMs, lost, rembCapKbps,
    }];
  });
}

/**
 * @typedef {object} AdminSampler
 * @property {() => void} start   the first reading one interval later (Janus's bitrates cover the last second)
 * @property {() => Promise<SfuRow[]>} stop  stops the timer after any reading in progress; returns the rows
 * @property {SfuRow[]} rows
 * @property {string|null} unavailable  why there are no rows, else null
 */

/**
 * Reads Janus's Admin API once a second. A failed reading is not fatal (the browsers' view is the measurement): the
 * first failure of a streak goes to onWarning, and each failed second is a gap in the rows.
 * @param {object} options
 * @param {import('./janus-admin.js').JanusAdmin} options.admin
 * @param {(handleId: number) => import('./bridge.js').HandleOwner|undefined} options.ownerOf  the bridge's handleOwner
 * @param {(message: string) => void} options.onWarning
 * @param {number} [options.intervalMs]
 * @param {typeof readHandleRows} [options.readRows]  stands in for Janus in tests
 * @returns {AdminSampler}
 */
export function createAdminSampler({ admin, ownerOf, onWarning, intervalMs = 1_000, readRows = readHandleRows }) {
  /** @type {SfuRow[]} */
  const rows = [];
  /** @type {NodeJS.Timeout|null} */
  let timer = null;
  /** @type {Promise<void>} */
  let inFlight = Promise.resolve();
  let busy = false;
  /** @type {string|null} */
  let failure = null;
  /** @type {string|null} */
  let lastFailure = null;

  const read = async () => {
    // A reading slower than the interval (a loaded host) skips a second rather than piling requests on Janus.
    if (busy) return;
    busy = true;
    const epochMs = Date.now();
    inFlight = readRows(admin).then((handleRows) => {
      rows.push(...sfuRows(handleRows, ownerOf, epochMs));
      failure = null;
    }, (error) => {
      if (failure === null) onWarning(`reading Janus's Admin API: ${error.message}`);
      failure = error.message;
      lastFailure = error.message;
    }).finally(() => { busy = false; });
    await inFlight;
  };

  return {
    rows,
    start() {
      timer ??= setInterval(read, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await inFlight;
      return rows;
    },
    get unavailable() {
      if (rows.length) return null;
      if (!timer) return 'not sampled: the call did not start';
      return lastFailure ? `Janus's Admin API failed: ${lastFailure}` : 'Janus reported no media on any handle';
    },
  };
}
