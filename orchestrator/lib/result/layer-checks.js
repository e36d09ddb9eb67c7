// The checks of a simulcast/SVC call (pure), each able to fail: every layer asked for was sent at its resolution; a
// lower layer never carries more than a higher one; a subscriber behind a capped downlink moves to a lower layer after
// each cap and back up when it lifts, with the time each move took; one behind a capacity trace receives higher layers
// while the trace is high than while it is low; a subscriber on an open link stays on the top layer.
// lib/result/layers.js gives them the call's publishers, per-second sent encodings and received layers.

/**
 * @typedef {{ check: string, peer: string, passed: boolean, detail: string, [field: string]: unknown }} LayerCheck
 * @typedef {{ layer: number, rid: string|null, widthPx: number, heightPx: number }} LayerSize
 * @typedef {{ t: number, peer: string, rid: string|null, layer: number|null, widthPx: number|null, heightPx: number|null,
 *   fps: number|null, kbps: number|null, active: boolean|null }} SentRow
 * @typedef {{ t: number, peer: string, feed: string, layer: number|null, widthPx: number|null, heightPx: number|null,
 *   fps: number|null, kbps: number|null }} ReceivedRow
 * @typedef {{ atS: number, rateKbps: number|null }} DownlinkChange  a subscriber's downlink rate from atS on (null: unlimited)
 */

/** A layer counts as sent in a second above this rate: Chromium keeps a paused rid's RTCP and padding below it. */
export const SENT_MIN_KBPS = 10;
/** Share of the window's seconds a layer must be sent at its size, and an open-link subscriber on its top layer. */
export const MIN_SHARE = 0.8;

/** @param {number[]} values */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? null : sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const pct = (/** @type {number} */ share) => `${Math.round(share * 100)} %`;

/**
 * Every layer of a simulcast publisher was sent at its resolution in at least MIN_SHARE of the window's seconds.
 * @param {string} peer @param {LayerSize[]} sizes @param {SentRow[]} rows  the publisher's, in the window
 * @param {number} windowS @returns {LayerCheck}
 */
export function checkLayersSent(peer, sizes, rows, windowS) {
  const missing = sizes.flatMap((size) => {
    const mine = rows.filter((row) => row.layer === size.layer);
    const atSize = mine.filter((row) => (row.kbps ?? 0) > SENT_MIN_KBPS && row.widthPx === size.widthPx && row.heightPx === size.heightPx);
    if (atSize.length >= MIN_SHARE * windowS) return [];
    const seen = [...new Set(mine.filter((row) => (row.kbps ?? 0) > SENT_MIN_KBPS).map((row) => `${row.widthPx}×${row.heightPx}`))];
    return [`layer ${size.layer}${size.rid ? ` (rid ${size.rid})` : ''} at ${size.widthPx}×${size.heightPx} in ${atSize.length} of ${windowS} s`
      + ` (sent: ${seen.join(', ') || 'nothing'})`];
  });
  return {
    check: 'layersSent', peer, passed: missing.length === 0,
    detail: missing.length ? `not every layer was sent at its resolution: ${missing.join('; ')}` : `${sizes.length} layers sent at their resolutions`,
  };
}

/**
 * A lower layer never out-bitrates a higher one: the window's median rate rises with each layer, and the seconds where
 * a lower layer sent more than a higher one that was sending too are counted.
 * @param {string} peer @param {LayerSize[]} sizes @param {SentRow[]} rows @returns {LayerCheck}
 */
export function checkLayerOrder(peer, sizes, rows) {
  const medians = sizes.map((size) => median(rows.filter((row) => row.layer === size.layer).map((row) => row.kbps ?? 0)) ?? 0);
  const inverted = medians.flatMap((kbps, layer) => (layer > 0 && kbps <= medians[layer - 1] ? [layer] : []));
  const seconds = [...new Set(rows.map((row) => row.t))];
  const invertedSeconds = seconds.filter((t) => {
    const rates = sizes.map((size) => rows.find((row) => row.t === t && row.layer === size.layer)?.kbps ?? 0);
    return rates.some((kbps, layer) => layer > 0 && kbps > SENT_MIN_KBPS && rates[layer - 1] > kbps);
  }).length;
  const list = medians.map((kbps, layer) => `${layer}: ${Math.round(kbps)}`).join(', ');
  return {
    check: 'lowerLayersBelowHigher', peer, passed: inverted.length === 0, medianKbps: medians, invertedSeconds,
    detail: inverted.length
      ? `a lower layer out-bitrated a higher one: median kbps per layer ${list}`
      : `median kbps per layer ${list}; a lower layer sent more than a sending higher one in ${invertedSeconds} of ${seconds.length} s`,
  };
}

/**
 * A subscriber on an open downlink received every layered feed on the top layer its publisher was sending in at least
 * MIN_SHARE of the window. A publisher whose own encoder sent less (Chromium adapting its picture) is judged by
 * layersSent, not its subscribers: a second counts against them only below what the feed offered in it and the second
 * before (the two stats clocks are up to a second apart).
 * @param {string} peer @param {ReceivedRow[]} rows  the subscriber's, in the window
 * @param {Record<string, { top: number, sentTopAt: (t: number) => number|null }>} feeds  per feed: its top layer, and the
 *   highest layer its publisher sent at second t (null: not known)
 * @param {number} windowS @returns {LayerCheck}
 */
export function checkStaysOnTop(peer, rows, feeds, windowS) {
  const judged = Object.entries(feeds).map(([feed, { top, sentTopAt }]) => {
    const mine = rows.filter((row) => row.feed === feed);
    const known = (/** @type {number} */ t) => [sentTopAt(t), sentTopAt(t - 1)].filter((layer) => layer !== null);
    const offered = (/** @type {number} */ t) => Math.min(top, .../** @type {number[]} */ (known(t)));
    const onTop = mine.filter((row) => row.layer !== null && row.layer >= offered(row.t)).length;
    return { feed, top, onTop, belowS: mine.filter((row) => offered(row.t) < top).length };
  });
  const below = judged.filter((j) => j.belowS > 0).map((j) => `${j.feed} sent below its top layer in ${j.belowS} s`);
  const short = judged.filter((j) => j.onTop < MIN_SHARE * windowS).map((j) => `${j.feed} on layer ${j.top} in ${j.onTop} of ${windowS} s`);
  const note = below.length ? ` (judged against what was sent: ${below.join('; ')})` : '';
  return {
    check: 'openLinkOnTop', peer, passed: short.length === 0,
    detail: short.length ? `on an open downlink, not on the top layer: ${short.join('; ')}${note}`
      : `every feed on its top layer in at least ${pct(MIN_SHARE)} of the window${note}`,
  };
}

/**
 * The subscriber's received layers summed over its feeds at second t (null: no feed reported).
 * @param {ReceivedRow[]} rows @param {number} t
 */
const levelAt = (rows, t) => {
  const at = rows.filter((row) => row.t === t && row.layer !== null);
  return at.length ? at.reduce((sum, row) => sum + /** @type {number} */ (row.layer), 0) : null;
};

/**
 * A subscriber behind a capped downlink: after each change that lowers its rate it received lower layers than before
 * it; after one that raises it, higher ones; after one back to its rate of the call's start (the cap lifted), its
 * layers of before the first cap again; each with the time it took. Levels are the received layers summed over its
 * feeds, a second at a time; a move's fromLevel is null when no layer arrived between the previous change and it.
 * @param {string} peer @param {ReceivedRow[]} rows  the subscriber's, the whole call
 * @param {DownlinkChange[]} changes  its downlink's rate at the start (atS 0), then each change, in time
 * @param {number} durationS @returns {LayerCheck & { moves: CapMove[] }}
 * @typedef {{ atS: number, rateKbps: number|null, direction: 'down'|'up', fromLevel: number|null, targetLevel: number|null,
 *   reachedAtS: number|null, afterS: number|null }} CapMove
 */
export function checkFollowsCap(peer, rows, changes, durationS) {
  const seconds = [...new Set(rows.map((row) => row.t))].sort((a, b) => a - b);
  /**
   * The levels in the last 3 s of (sinceS, atS], those seconds that had one: a frozen feed has none (frozen through
   * those seconds, none at all), and a level from before the previous change says nothing of the link since.
   * @param {number} sinceS @param {number} atS
   */
  const levelsIn = (sinceS, atS) => /** @type {number[]} */ (seconds.filter((t) => t > sinceS && t <= atS).slice(-3)
    .map((t) => levelAt(rows, t)).filter((v) => v !== null));
  const rate = (/** @type {number|null} */ kbps) => kbps ?? Infinity;
  const uncapped = levelsIn(-Infinity, changes[1]?.atS ?? 0);
  const moves = changes.slice(1).map((change, index) => {
    const until = changes[index + 2]?.atS ?? durationS;
    const lowered = rate(change.rateKbps) < rate(changes[index].rateKbps);
    const lifted = !lowered && rate(change.rateKbps) >= rate(changes[0].rateKbps);
    const start = levelsIn(index === 0 ? -Infinity : changes[index].atS, change.atS);
    // null: no layer received in the seconds before the change (frozen feeds), below every layer. Both ways from the
    // lowest of those seconds: a probe up the harness takes back a second later (before the change or after it) says
    // nothing of where the subscriber was settled when the change came.
    const from = start.length ? Math.min(...start) : null;
    const target = lifted && uncapped.length ? Math.max(...uncapped) : null;
    const reached = uncapped.length === 0 ? undefined : seconds.find((t) => {
      const level = levelAt(rows, t);
      if (t <= change.atS || t > until || level === null) return false;
      if (lowered) return from !== null && level < from;
      // Up is a move too: above the level before the change, and (the cap lifted) at the level of before the first cap.
      return (from === null || level > from) && level >= (target ?? (from ?? -1) + 1);
    });
    return {
      atS: change.atS, rateKbps: change.rateKbps, direction: /** @type {'down'|'up'} */ (lowered ? 'down' : 'up'), fromLevel: from, targetLevel: target,
      reachedAtS: reached ?? null, afterS: reached === undefined ? null : Number((reached - change.atS).toFixed(3)),
    };
  });
  // A cap that leaves the subscriber already on its lowest layers, or with nothing received, has nothing to move.
  const failed = moves.filter((move) => move.reachedAtS === null && !(move.direction === 'down' && (move.fromLevel ?? 0) === 0));
  const describe = (/** @type {typeof moves[number]} */ m) => `${m.direction} at ${m.atS} s (${m.rateKbps ?? 'unlimited'} kbps): `
    + `${m.afterS === null ? 'no move' : `after ${m.afterS} s`}`;
  // On its lowest layers with the link still open, a subscriber has nothing to move down from: the check says so.
  const followable = uncapped.length > 0 && Math.max(...uncapped) > 0;
  const problems = [
    ...(uncapped.length ? [] : [`no layer received before the first change at ${changes[1]?.atS ?? 0} s`]),
    ...(uncapped.length && !followable ? [`on the lowest layers before the first change at ${changes[1]?.atS ?? 0} s: nothing to follow`] : []),
    ...(failed.length ? [`expected a move ${failed.map((m) => `${m.direction} after ${m.atS} s`).join(', ')}`] : []),
  ];
  return {
    check: 'followsDownlinkCap', peer, passed: moves.length > 0 && followable && failed.length === 0, moves,
    detail: [moves.map(describe).join('; '), ...problems].join('; '),
  };
}

/**
 * Seconds the harness's choice lags its downlink: it decides on a complete second, steps down after 2 s of deficit, and
 * a new layer starts at its next keyframe.
 */
export const TRACE_LAG_S = 3;
/** The received level (layers summed over the feeds) while the trace is high must exceed its level while low by this. */
export const MIN_TRACE_LEVEL_GAP = 0.5;
/** Seconds each part of the window (trace high, trace low) needs for the comparison to say anything. */
export const MIN_TRACE_PART_S = 5;
/** The trace varied: the high third's mean capacity is at least this many times the low third's. */
export const MIN_TRACE_CAPACITY_RATIO = 1.5;

/** @param {number[]} values */
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);
const round2 = (/** @type {number|null} */ value) => (value === null ? null : Math.round(value * 100) / 100);

/**
 * A subscriber whose downlink capacity follows a trace: it received higher layers while the trace was high than while it
 * was low. Each second of the window with a received layer is paired with the trace's mean capacity over the
 * TRACE_LAG_S seconds before it (what the harness could have answered to by then); the third of those seconds with the
 * highest capacities is `high`, the third with the lowest `low` (the middle third, near the layers' own rates, may
 * carry either). The high third's mean level must exceed the low third's by MIN_TRACE_LEVEL_GAP, each third having at
 * least MIN_TRACE_PART_S seconds and the high third's mean capacity MIN_TRACE_CAPACITY_RATIO times the low third's (a
 * trace that hardly varies in the window, or a subscriber with no picture, has nothing to follow and fails).
 * @param {string} peer @param {ReceivedRow[]} rows  the subscriber's, in the window
 * @param {Array<{ t: number, rateKbps: number|null }>} capacity  its downlink's mean capacity over each second [t, t + 1)
 * @returns {LayerCheck & { lagS: number, high: TracePart, low: TracePart, levelGap: number|null }}
 * @typedef {{ seconds: number, meanCapacityKbps: number|null, meanLevel: number|null }} TracePart
 */
export function checkFollowsTrace(peer, rows, capacity) {
  const seconds = [...new Set(rows.map((row) => row.t))].sort((a, b) => a - b);
  const paired = seconds.flatMap((t) => {
    const level = levelAt(rows, t);
    const before = /** @type {number[]} */ (capacity.filter((c) => c.t >= t - TRACE_LAG_S && c.t < t && c.rateKbps !== null)
      .map((c) => c.rateKbps));
    const capacityKbps = before.length === TRACE_LAG_S ? mean(before) : null;
    return level === null || capacityKbps === null ? [] : [{ t, level, capacityKbps: /** @type {number} */ (capacityKbps) }];
  }).sort((a, b) => a.capacityKbps - b.capacityKbps || a.t - b.t);
  const third = Math.floor(paired.length / 3);
  /** @param {typeof paired} list @returns {TracePart} */
  const part = (list) => ({
    seconds: list.length,
    meanCapacityKbps: round2(mean(list.map((p) => p.capacityKbps))),
    meanLevel: round2(mean(list.map((p) => p.level))),
  });
  const [high, low] = [part(third ? paired.slice(-third) : []), part(paired.slice(0, third))];
  const gap = high.meanLevel === null || low.meanLevel === null ? null : round2(high.meanLevel - low.meanLevel);
  const varied = third >= MIN_TRACE_PART_S && (high.meanCapacityKbps ?? 0) >= MIN_TRACE_CAPACITY_RATIO * (low.meanCapacityKbps ?? Infinity);
  const passed = varied && gap !== null && gap >= MIN_TRACE_LEVEL_GAP;
  const describe = (/** @type {TracePart} */ p) => `${p.seconds} s`
    + `${p.seconds ? ` (${Math.round(/** @type {number} */ (p.meanCapacityKbps))} kbps on average): mean level ${p.meanLevel}` : ''}`;
  const summary = `trace high ${describe(high)}; low ${describe(low)}`;
  return {
    check: 'followsDownlinkTrace', peer, passed, lagS: TRACE_LAG_S, high, low, levelGap: gap,
    detail: !varied ? `${summary}; the trace did not vary in the window (under ${MIN_TRACE_PART_S} s a third, or high under `
      + `${MIN_TRACE_CAPACITY_RATIO}× low), or no layer arrived`
      : `${summary}; ${passed ? '' : 'not '}higher layers while the trace was high (gap ${gap}, at least ${MIN_TRACE_LEVEL_GAP})`,
  };
}
