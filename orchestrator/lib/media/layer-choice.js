// Which simulcast/SVC layer each subscription of one subscriber gets, from that subscriber's measured downlink, as a
// client of an SFU that does not choose by bandwidth (Janus VideoRoom) would ask for it (pure; run/layer-controller.js
// feeds it a second at a time and asks the SFU). A layer is a rung of a ladder, lowest first: the lowest spatial
// layer's temporal layers, then each higher spatial layer at full frame rate. Down at once when the downlink is
// congested (loss, or less arriving than the chosen layers carry), to what arrived; up one rung (every feed below its
// top) after a clean hold, climbing on quickly while probes succeed; a probe that congestion follows within a few
// seconds goes back down and doubles the hold.

/** @typedef {{ spatial: number, temporal: number }} Layer */

/**
 * @typedef {object} LayerPolicy
 * @property {number} lossPct        congestion: the subscriber's downlink loss above this
 * @property {number} deficitRatio   congestion: less than this share of what the chosen layers carry arrived …
 * @property {number} deficitS       … this many seconds in a row (one second may be a publisher's hiccup)
 * @property {number} headroom       the budget after congestion: what arrived, times this
 * @property {number} upHoldS        clean seconds before a probe up after congestion
 * @property {number} climbHoldS     clean seconds between probes while they succeed
 * @property {number} maxHoldS       the hold's ceiling after failed probes
 * @property {number} probeWindowS   congestion this soon after a probe fails it
 * @property {number} settleS        after a switch, seconds in which only loss is congestion: the new layer starts at
 *   its next keyframe, so a second's received rate still shows the old one
 */

/** @type {LayerPolicy} */
export const LAYER_POLICY = Object.freeze({
  lossPct: 5, deficitRatio: 0.75, deficitS: 2, headroom: 0.9, upHoldS: 2, climbHoldS: 1, maxHoldS: 6, probeWindowS: 2, settleS: 1,
});

/** What each temporal layer keeps of its spatial layer's rate (1, 2 or 3 temporal layers; the top keeps it all). */
const TEMPORAL_SHARE = { 1: [1], 2: [0.6, 1], 3: [0.4, 0.6, 1] };

/**
 * One subscription's second.
 * @typedef {object} FeedReading
 * @property {string} feed
 * @property {number|null} recvKbps     what the subscriber received of it
 * @property {number|null} lossPct
 * @property {Array<number|null>} layerKbps  what its publisher sent per spatial layer that second, lowest first (null:
 *   unknown; 0: not sent)
 */

/**
 * @typedef {object} SubscriberState
 * @property {Record<string, number>} rungs  per feed, the rung asked for
 * @property {number} cleanS      seconds since the last congestion or switch
 * @property {number} holdS       clean seconds the next probe up waits for
 * @property {number} baseHoldS   the hold after congestion: upHoldS, doubled by each failed probe
 * @property {number|null} probeAtS  the last probe up, while its window is open
 * @property {number|null} switchedAtS  the last switch
 * @property {number} deficitS    seconds in a row with less arriving than the chosen layers carry
 */

/**
 * @typedef {object} LayerSwitch
 * @property {string} feed
 * @property {Layer} from
 * @property {Layer} to
 * @property {string} cause
 * @property {number|null} budgetKbps  what the choice allowed the subscriber's subscriptions together (null: a probe)
 */

/**
 * The ladder of one feed: its rungs, lowest first.
 * @param {number} spatialLayers @param {number} temporalLayers
 * @returns {Layer[]}
 */
export function ladder(spatialLayers, temporalLayers) {
  const temporal = Array.from({ length: temporalLayers }, (_, t) => ({ spatial: 0, temporal: t }));
  const spatial = Array.from({ length: spatialLayers - 1 }, (_, s) => ({ spatial: s + 1, temporal: temporalLayers - 1 }));
  return [...temporal, ...spatial];
}

/**
 * The state before any reading: every feed on its top rung (VideoRoom forwards the top substream until asked).
 * @param {Record<string, Layer[]>} ladders  per feed
 * @returns {SubscriberState}
 */
export const initialState = (ladders) => ({
  rungs: Object.fromEntries(Object.entries(ladders).map(([feed, rungs]) => [feed, rungs.length - 1])),
  cleanS: 0, holdS: LAYER_POLICY.upHoldS, baseHoldS: LAYER_POLICY.upHoldS, probeAtS: null, switchedAtS: null, deficitS: 0,
});

/** A ladder's temporal layers: its rungs on the lowest spatial layer. @param {Layer[]} rungs */
const temporalLayersOf = (rungs) => rungs.filter((rung) => rung.spatial === 0).length;

/**
 * What a rung carries by the publisher's last second: its spatial layer's rate times its temporal share; null unknown.
 * @param {Layer} layer @param {number} temporalLayers @param {Array<number|null>} layerKbps
 */
function rungKbps(layer, temporalLayers, layerKbps) {
  const kbps = layerKbps[layer.spatial];
  const shares = TEMPORAL_SHARE[/** @type {1|2|3} */ (temporalLayers)] ?? [1];
  return kbps === null || kbps === undefined ? null : kbps * (shares[layer.temporal] ?? 1);
}

/**
 * The highest rungs whose rates fit the budget together: from each feed's highest sent rung, the highest rung of all
 * steps down until they fit or every feed is on its lowest.
 * @param {Record<string, Layer[]>} ladders @param {Record<string, FeedReading>} readings @param {number} budgetKbps
 * @returns {Record<string, number>}
 */
function fitBudget(ladders, readings, budgetKbps) {
  const feeds = Object.keys(ladders);
  const cost = (/** @type {string} */ feed, /** @type {number} */ rung) => rungKbps(ladders[feed][rung], temporalLayersOf(ladders[feed]),
    readings[feed]?.layerKbps ?? []) ?? 0;
  // A spatial layer the publisher does not send (0 kbps) is no rung to ask for.
  const highestSent = (/** @type {string} */ feed) => {
    const rungs = ladders[feed];
    for (let rung = rungs.length - 1; rung > 0; rung -= 1) if ((readings[feed]?.layerKbps[rungs[rung].spatial] ?? 1) !== 0) return rung;
    return 0;
  };
  const rungs = Object.fromEntries(feeds.map((feed) => [feed, highestSent(feed)]));
  const total = () => feeds.reduce((sum, feed) => sum + cost(feed, rungs[feed]), 0);
  while (total() > budgetKbps) {
    const lowerable = feeds.filter((feed) => rungs[feed] > 0);
    if (!lowerable.length) break;
    lowerable.sort((a, b) => rungs[b] - rungs[a] || cost(b, rungs[b]) - cost(a, rungs[a]) || a.localeCompare(b));
    rungs[lowerable[0]] -= 1;
  }
  return rungs;
}

/**
 * Why the subscriber's downlink is congested this second, or null; and whether less arrived than the layers carry.
 * @param {SubscriberState} state @param {Record<string, Layer[]>} ladders @param {FeedReading[]} readings @param {LayerPolicy} policy
 * @param {number} atS
 */
function congestion(state, ladders, readings, policy, atS) {
  const lossPct = Math.max(0, ...readings.map((reading) => reading.lossPct ?? 0));
  if (lossPct > policy.lossPct) return { why: `loss ${lossPct.toFixed(1)} % > ${policy.lossPct} %`, deficit: false };
  if (state.switchedAtS !== null && atS - state.switchedAtS <= policy.settleS) return { why: null, deficit: false };
  const received = readings.reduce((sum, reading) => sum + (reading.recvKbps ?? 0), 0);
  // Nothing arrived from any feed: a stall (a publisher's or the browser's), which says nothing about the downlink.
  if (received === 0) return { why: null, deficit: false };
  const expected = readings.reduce((sum, reading) => {
    const rungs = ladders[reading.feed];
    return sum + (rungKbps(rungs[state.rungs[reading.feed]], temporalLayersOf(rungs), reading.layerKbps) ?? 0);
  }, 0);
  const deficit = expected > 0 && received < policy.deficitRatio * expected;
  if (!deficit || state.deficitS + 1 < policy.deficitS) return { why: null, deficit };
  return { why: `received ${Math.round(received)} kbps < ${Math.round(policy.deficitRatio * 100)} % of the ${Math.round(expected)} kbps its layers carry`
    + `${policy.deficitS > 1 ? ` (${state.deficitS + 1} s in a row)` : ''}`, deficit };
}

/**
 * Feeds whose loss this second is upstream of the SFU's forwarding: every subscriber of the feed (two or more) lost
 * over the policy's share of it, as when its publisher's own uplink or sender falters. No subscriber's layer choice
 * mends that, so its loss must not move anyone's layers down.
 * @param {FeedReading[][]} readingsBySubscriber  one list per subscriber, this second
 * @param {LayerPolicy} [policy]
 * @returns {Set<string>}
 */
export function upstreamLossFeeds(readingsBySubscriber, policy = LAYER_POLICY) {
  /** @type {Map<string, { subscribers: number, lossy: number }>} */
  const byFeed = new Map();
  for (const reading of readingsBySubscriber.flat()) {
    const counts = byFeed.get(reading.feed) ?? { subscribers: 0, lossy: 0 };
    counts.subscribers += 1;
    if ((reading.lossPct ?? 0) > policy.lossPct) counts.lossy += 1;
    byFeed.set(reading.feed, counts);
  }
  return new Set([...byFeed].filter(([, { subscribers, lossy }]) => subscribers >= 2 && lossy === subscribers).map(([feed]) => feed));
}

/**
 * One second of one subscriber: the state after it and the switches to ask the SFU for.
 * @param {SubscriberState} state
 * @param {Record<string, Layer[]>} ladders  per feed
 * @param {FeedReading[]} readings  this second, one per feed with a reading
 * @param {{ atS: number, policy?: LayerPolicy }} options
 * @returns {{ state: SubscriberState, switches: LayerSwitch[] }}
 */
export function chooseLayers(state, ladders, readings, { atS, policy = LAYER_POLICY }) {
  const byFeed = Object.fromEntries(readings.map((reading) => [reading.feed, reading]));
  const { why, deficit } = readings.length ? congestion(state, ladders, readings, policy, atS) : { why: null, deficit: false };
  const deficitS = deficit ? state.deficitS + 1 : 0;
  /** @param {Record<string, number>} rungs @param {string} cause @param {number|null} budgetKbps @returns {LayerSwitch[]} */
  const switchesTo = (rungs, cause, budgetKbps) => Object.keys(rungs).filter((feed) => rungs[feed] !== state.rungs[feed])
    .map((feed) => ({ feed, from: ladders[feed][state.rungs[feed]], to: ladders[feed][rungs[feed]], cause, budgetKbps }));
  const probeOpen = state.probeAtS !== null && atS - state.probeAtS <= policy.probeWindowS;
  if (why) {
    const received = readings.reduce((sum, reading) => sum + (reading.recvKbps ?? 0), 0);
    const budgetKbps = Math.round(received * policy.headroom);
    const fitted = fitBudget(ladders, byFeed, budgetKbps);
    // Congestion never raises a feed: a rung above the current one only fits by a stale rate.
    const rungs = Object.fromEntries(Object.keys(state.rungs)
      .map((feed) => [feed, Math.min(state.rungs[feed], fitted[feed] ?? state.rungs[feed])]));
    const baseHoldS = probeOpen ? Math.min(state.baseHoldS * 2, policy.maxHoldS) : state.baseHoldS;
    const cause = probeOpen ? `${why} (probe up at ${state.probeAtS} s failed; next probe after ${baseHoldS} s)` : why;
    const switches = switchesTo(rungs, cause, budgetKbps);
    const switchedAtS = switches.length ? atS : state.switchedAtS;
    const next = { rungs, cleanS: 0, holdS: baseHoldS, baseHoldS, probeAtS: null, switchedAtS, deficitS: 0 };
    return { state: next, switches };
  }
  // A second of deficit alone is not clean, nor congestion yet.
  const cleanS = deficit ? 0 : state.cleanS + 1;
  // A probe whose window passed clean succeeded: the next congestion starts from the short hold again.
  const probeAtS = probeOpen ? state.probeAtS : null;
  const baseHoldS = state.probeAtS !== null && !probeOpen ? policy.upHoldS : state.baseHoldS;
  // Every feed below its top whose next rung the publisher sends.
  const rising = Object.keys(state.rungs).filter((feed) => {
    const next = ladders[feed][state.rungs[feed] + 1];
    return next && (byFeed[feed]?.layerKbps[next.spatial] ?? 1) !== 0;
  });
  if (cleanS < state.holdS || !rising.length) return { state: { ...state, cleanS, baseHoldS, probeAtS, deficitS }, switches: [] };
  const rungs = { ...state.rungs, ...Object.fromEntries(rising.map((feed) => [feed, state.rungs[feed] + 1])) };
  const switches = switchesTo(rungs, `no congestion for ${cleanS} s: probing up`, null);
  return { state: { rungs, cleanS: 0, holdS: policy.climbHoldS, baseHoldS, probeAtS: atS, switchedAtS: atS, deficitS: 0 }, switches };
}
