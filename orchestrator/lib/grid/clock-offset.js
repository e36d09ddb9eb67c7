// Clock offsets of Grid nodes to the orchestrator (pure). A node's clock is read over CDP on one of its pages: the
// orchestrator stamps a request before sending it and after the answer; the sample with the smallest round trip
// bounds the node's reading best, and the node read its clock within that round trip, so the offset is its reading
// minus the round trip's midpoint, within ± half the round trip. Times on a node's clock (its pages' frame times) are
// put on the orchestrator's by subtracting the offset, interpolated between the call's start and end readings.

/**
 * @typedef {{ sentMs: number, remoteMs: number, receivedMs: number }} ClockSample  sentMs, receivedMs: the
 *   orchestrator's clock around the request; remoteMs: the node's clock as its page read it
 * @typedef {{ offsetMs: number, errorMs: number, rttMs: number, samples: number, atMs: number }} ClockOffset
 *   offsetMs: node clock − orchestrator clock; errorMs: ± half the best sample's round trip; atMs: when (orchestrator clock)
 * @typedef {{ start: ClockOffset & { peer: string }, end: (ClockOffset & { peer: string })|null, driftMs: number|null }} NodeClock
 */

/** @param {number} value */
const round3 = (value) => Number(value.toFixed(3));

/**
 * The offset from the sample with the smallest round trip; samples whose times are not numbers or run backwards
 * are left out (a page that answered garbage).
 * @param {ClockSample[]} samples
 * @returns {ClockOffset}
 */
export function estimateOffset(samples) {
  const valid = samples.filter(({ sentMs, remoteMs, receivedMs }) => [sentMs, remoteMs, receivedMs].every(Number.isFinite)
    && receivedMs >= sentMs);
  if (!valid.length) throw new Error(`no usable clock sample among ${samples.length}: every one was not a number or ran backwards`);
  const best = valid.reduce((a, b) => (b.receivedMs - b.sentMs < a.receivedMs - a.sentMs ? b : a));
  const rttMs = best.receivedMs - best.sentMs;
  const midpointMs = best.sentMs + rttMs / 2;
  return {
    offsetMs: round3(best.remoteMs - midpointMs), errorMs: round3(rttMs / 2), rttMs: round3(rttMs), samples: valid.length,
    atMs: Math.round(midpointMs),
  };
}

/**
 * Each node's clock at the call's start and end: of its pages' offsets, the one with the smallest error.
 * @param {Record<string, string>} nodeOfPeer  peer → node label
 * @param {Record<string, ClockOffset>} start  per peer
 * @param {Record<string, ClockOffset>} [end]  per peer (missing when the call ended before it could be read)
 * @returns {Record<string, NodeClock>}
 */
export function nodeClocks(nodeOfPeer, start, end = {}) {
  /** @param {Record<string, ClockOffset>} offsets @param {string} label */
  const best = (offsets, label) => Object.entries(offsets).filter(([peer]) => nodeOfPeer[peer] === label)
    .map(([peer, offset]) => ({ peer, ...offset })).sort((a, b) => a.errorMs - b.errorMs)[0] ?? null;
  /** @type {Record<string, NodeClock>} */
  const clocks = {};
  for (const label of [...new Set(Object.values(nodeOfPeer))].sort()) {
    const first = best(start, label);
    if (!first) continue;
    const last = best(end, label);
    clocks[label] = { start: first, end: last, driftMs: last ? round3(last.offsetMs - first.offsetMs) : null };
  }
  return clocks;
}

/**
 * A node's offset at an orchestrator time: linear between the start and end readings, the nearer one outside them.
 * @param {NodeClock} clock @param {number} atMs
 */
export function offsetAt({ start, end }, atMs) {
  if (!end || end.atMs <= start.atMs || atMs <= start.atMs) return start.offsetMs;
  if (atMs >= end.atMs) return end.offsetMs;
  return start.offsetMs + ((end.offsetMs - start.offsetMs) * (atMs - start.atMs)) / (end.atMs - start.atMs);
}

/** The larger of a node's start and end errors: what any time put on the orchestrator's clock may be off by. @param {NodeClock} clock */
export const clockErrorMs = ({ start, end }) => Math.max(start.errorMs, end?.errorMs ?? 0);

/**
 * A node's clock by its label: an own field only, so a node labelled "constructor" without a reading has none.
 * @param {Record<string, NodeClock>} clocks @param {string|undefined} label
 */
const clockOf = (clocks, label) => (label !== undefined && Object.hasOwn(clocks, label) ? clocks[label] : undefined);

/**
 * Frame times taken on the pages' nodes, on the orchestrator's clock. A peer without a node clock is left as it is.
 * @template {{ peer: string, epochMs: number[] }} B
 * @param {B[]} batches @param {Record<string, string>} nodeOfPeer @param {Record<string, NodeClock>} clocks
 * @returns {B[]}
 */
export function onOrchestratorClock(batches, nodeOfPeer, clocks) {
  return batches.map((batch) => {
    const clock = clockOf(clocks, nodeOfPeer[batch.peer]);
    if (!clock) return batch;
    return { ...batch, epochMs: batch.epochMs.map((epochMs) => Number((epochMs - offsetAt(clock, epochMs)).toFixed(1))) };
  });
}

/**
 * How far each stream's glass-to-glass delay may be off because its two ends read different clocks: none on one node
 * (the same clock at both ends), else the two nodes' errors added.
 * @param {string[]} streams  `${sender}->${receiver}`
 * @param {Record<string, string>} nodeOfPeer @param {Record<string, NodeClock>} clocks
 * @returns {Record<string, { sameNode: boolean, clockErrorMs: number|null }>}  null: a node's clock was not read
 */
export function glassToGlassClockError(streams, nodeOfPeer, clocks) {
  return Object.fromEntries(streams.map((stream) => {
    const [sender, receiver] = stream.split('->');
    const [from, to] = [nodeOfPeer[sender], nodeOfPeer[receiver]];
    if (from === to) return [stream, { sameNode: true, clockErrorMs: 0 }];
    const [fromClock, toClock] = [clockOf(clocks, from), clockOf(clocks, to)];
    const clockError = fromClock && toClock ? round3(clockErrorMs(fromClock) + clockErrorMs(toClock)) : null;
    return [stream, { sameNode: false, clockErrorMs: clockError }];
  }));
}
