// SFUs side by side (pure): per subscriber of an SFU call, what it received through each run's SFU (environment.sfu):
// seconds on each received layer in the measurement window, each change of received layer, how long each move after a
// change of its downlink cap took (layers.checks followsDownlinkCap), freezes as seen, glass-to-glass delay and VMAF
// (summary.viewer). The result is untrusted input: a run without a section is "not measured" (null), never an error.
import { layerCategories, layersOf } from './layer-series.js';
import { isFiniteNumber } from './format.js';
import { isRecord } from '../lib/input/validate.js';

/**
 * @typedef {{ layer: number, label: string, seconds: number, share: number }} LayerTime  seconds: averaged over the
 *   subscriber's feeds; share: of the window
 * @typedef {{ atS: number, feed: string, from: number, to: number }} ReceivedSwitch  the second the received layer changed
 * @typedef {{ atS: number, rateKbps: number|null, direction: string, fromLevel: number|null, afterS: number|null }} CapMove
 *   afterS null: no move; fromLevel: the received layers summed over the feeds before it (null: no picture)
 * @typedef {{ feeds: string[], windowS: number, layers: LayerTime[], noPictureS: number, switches: ReceivedSwitch[],
 *   capMoves: CapMove[], downlink: Array<{ atS: number, rateKbps: number|null }> }} ReceivedFigures
 * @typedef {{ feed: string, median: number|null, p95: number|null }} FeedDelay
 * @typedef {{ feed: string, mean: number }} FeedVmaf
 * @typedef {{ peer: string, received: ReceivedFigures|null, freezes: { count: number, totalMs: number }|null,
 *   glassToGlassMs: FeedDelay[]|null, vmaf: FeedVmaf[]|null }} SubscriberFigures  null: not measured in that run
 * @typedef {{ label: string, href: string|null, scenario: string, status: string, sfu: string|null, sfuVersion: string|null,
 *   emulator: string|null, subscribers: SubscriberFigures[] }} SfuRun
 * @typedef {{ scenario: string, sfus: string[], peers: string[], runs: SfuRun[] }} SfuComparison
 */

/** @param {unknown} v @returns {Record<string, unknown>} */
const obj = (v) => (isRecord(v) ? v : {});
/** @param {unknown} v @returns {string|null} */
const text = (v) => (typeof v === 'string' && v !== '' ? v : null);
/** @param {unknown} v @returns {number|null} */
const finite = (v) => (isFiniteNumber(v) ? v : null);
const round = (/** @type {number} */ v) => Math.round(v * 1000) / 1000;
const sum = (/** @type {number[]} */ values) => values.reduce((total, v) => total + v, 0);

/** The SFU a result's call went through (`environment.sfu.name`); null for a mesh call or a result without one. @param {unknown} result */
export const sfuOf = (result) => text(obj(obj(obj(result).environment).sfu).name);

/**
 * Whether results went through different SFUs: the compare page then sets them side by side.
 * @param {unknown[]} results
 */
export const differInSfu = (results) => new Set(results.map(sfuOf).filter(Boolean)).size > 1;

/**
 * The measurement window of a result: after its warm-up, to its duration (the last row's second when it records none).
 * @param {Record<string, unknown>} scenario @param {number[]} times
 */
function windowOf(scenario, times) {
  const fromS = Math.max(0, finite(scenario.warmupS) ?? 0);
  const toS = finite(scenario.durationS) ?? Math.max(fromS, ...times);
  return { fromS, toS, windowS: Math.max(1, Math.floor(toS - fromS)) };
}

/**
 * A subscriber's received layers: seconds on each (rows per feed and second, averaged over its feeds), each change of
 * layer in the window (the last layer before it may be older: a second without a picture is no change), its cap moves.
 * @param {import('./layer-series.js').ReportLayers} layers @param {Record<string, unknown>} rawLayers result.layers
 * @param {string} peer @param {{ fromS: number, toS: number, windowS: number }} window
 * @returns {ReceivedFigures}
 */
function receivedFigures(layers, rawLayers, peer, { fromS, toS, windowS }) {
  const rows = layers.received.filter((row) => row.peer === peer).sort((a, b) => a.t - b.t);
  const feeds = [...new Set(rows.map((row) => row.feed))].sort();
  /** @type {Map<string, number>} one layer per feed and second: a repeated row counts once */
  const seen = new Map();
  /** @type {ReceivedSwitch[]} */
  const switches = [];
  for (const feed of feeds) {
    let last = null;
    for (const row of rows.filter((r) => r.feed === feed)) {
      const inWindow = row.t > fromS && row.t <= toS;
      if (inWindow && row.layer !== null) seen.set(`${feed} ${row.t}`, row.layer);
      if (row.layer === null) continue;
      if (inWindow && last !== null && row.layer !== last) switches.push({ atS: row.t, feed, from: last, to: row.layer });
      last = row.layer;
    }
  }
  const counts = [...seen.values()].reduce((map, layer) => map.set(layer, (map.get(layer) ?? 0) + 1), new Map());
  const count = Math.max(0, ...counts.keys(), ...feeds.map((feed) => (layers.publishers.get(feed)?.layers.length ?? 0) - 1)) + 1;
  const labels = layerCategories(feeds.map((feed) => layers.publishers.get(feed)), count);
  const perFeed = Math.max(1, feeds.length);
  const layerTimes = labels.map((label, layer) => {
    const seconds = round((counts.get(layer) ?? 0) / perFeed);
    return { layer, label, seconds, share: round(seconds / windowS) };
  });
  const onLayers = sum(layerTimes.map((l) => l.seconds));
  return {
    feeds, windowS, layers: layerTimes, noPictureS: round(Math.max(0, windowS - onLayers)),
    switches: switches.sort((a, b) => a.atS - b.atS || a.feed.localeCompare(b.feed)),
    capMoves: capMovesOf(rawLayers, peer), downlink: layers.downlinks.get(peer) ?? [],
  };
}

/**
 * The moves of a subscriber's followsDownlinkCap check (lib/result/layer-checks.js), well-formed ones only; none for a
 * subscriber whose downlink never changed.
 * @param {Record<string, unknown>} rawLayers @param {string} peer
 * @returns {CapMove[]}
 */
function capMovesOf(rawLayers, peer) {
  const checks = Array.isArray(rawLayers.checks) ? rawLayers.checks.filter(isRecord) : [];
  const check = checks.find((c) => c.check === 'followsDownlinkCap' && c.peer === peer);
  const moves = Array.isArray(check?.moves) ? check.moves.filter(isRecord) : [];
  return moves.filter((m) => isFiniteNumber(m.atS)).map((m) => ({
    atS: Number(m.atS), rateKbps: finite(m.rateKbps), direction: m.direction === 'up' ? 'up' : 'down',
    fromLevel: finite(m.fromLevel), afterS: finite(m.afterS),
  }));
}

/**
 * The viewer's figures of the streams a subscriber received (summary.viewer.streams "<feed>-><peer>").
 * @param {Array<[string, Record<string, unknown>]>} streams @param {string} peer
 * @returns {Pick<SubscriberFigures, 'freezes'|'glassToGlassMs'|'vmaf'>}
 */
function viewerFigures(streams, peer) {
  const mine = streams.flatMap(([key, stream]) => {
    const [feed, to] = key.split('->');
    return to === peer && feed ? [{ feed, stream }] : [];
  }).sort((a, b) => a.feed.localeCompare(b.feed));
  if (!mine.length) return { freezes: null, glassToGlassMs: null, vmaf: null };
  const counted = mine.map(({ stream }) => obj(stream.freezes)).filter((f) => isFiniteNumber(f.count));
  const delays = mine.map(({ feed, stream }) => ({ feed, delay: obj(stream.glassToGlassMs) }))
    .map(({ feed, delay }) => ({ feed, median: finite(delay.median), p95: finite(delay.p95) }))
    .filter((d) => d.median !== null || d.p95 !== null);
  const vmaf = mine.flatMap(({ feed, stream }) => {
    const mean = finite(obj(obj(stream.quality).vmaf).mean);
    return mean === null ? [] : [{ feed, mean }];
  });
  return {
    freezes: counted.length
      ? { count: sum(counted.map((f) => Number(f.count))), totalMs: round(sum(counted.map((f) => finite(f.totalMs) ?? 0))) }
      : null,
    glassToGlassMs: delays.length ? delays : null,
    vmaf: vmaf.length ? vmaf : null,
  };
}

/**
 * One run's figures per subscriber: what the comparison keeps of a result.json (small: a suite reads one result at a time).
 * @param {unknown} result a result.json as read (normalized or not)
 * @param {{ label: string, href?: string|null }} run how the page names and links it
 * @returns {SfuRun}
 */
export function sfuRunFigures(result, { label, href = null }) {
  const raw = obj(result);
  const scenario = obj(raw.scenario);
  const rawLayers = obj(raw.layers);
  const layers = layersOf(raw);
  const streams = /** @type {Array<[string, Record<string, unknown>]>} */ (Object.entries(obj(obj(obj(raw.summary).viewer).streams))
    .filter(([key, stream]) => key.includes('->') && isRecord(stream)));
  const window = windowOf(scenario, layers?.received.map((row) => row.t) ?? []);
  const peers = [...new Set([
    ...(layers?.received.map((row) => row.peer) ?? []), ...(layers ? [...layers.downlinks.keys()] : []),
    ...streams.map(([key]) => key.split('->')[1]).filter(Boolean),
  ])].sort();
  return {
    label, href, scenario: text(scenario.name) ?? 'unnamed', status: text(raw.status) ?? 'unknown',
    sfu: sfuOf(raw), sfuVersion: text(obj(obj(raw.environment).sfu).version),
    emulator: text(obj(raw.network).emulator) ?? text(obj(raw.environment).emulator),
    subscribers: peers.map((peer) => ({
      peer,
      received: layers && layers.received.some((row) => row.peer === peer) ? receivedFigures(layers, rawLayers, peer, window) : null,
      ...viewerFigures(streams, peer),
    })),
  };
}

/**
 * Runs of one scenario through different SFUs, side by side: its columns are the runs, grouped by SFU (in the order
 * the SFUs first appear), its rows the subscribers any run had.
 * @param {SfuRun[]} runs of one scenario
 * @returns {SfuComparison}
 */
export function compareSfus(runs) {
  const sfus = [...new Set(runs.map((run) => run.sfu ?? 'no SFU'))];
  const ordered = sfus.flatMap((sfu) => runs.filter((run) => (run.sfu ?? 'no SFU') === sfu));
  return {
    scenario: [...new Set(runs.map((run) => run.scenario))].join(' · '),
    sfus, peers: [...new Set(runs.flatMap((run) => run.subscribers.map((s) => s.peer)))].sort(), runs: ordered,
  };
}

/**
 * A suite's runs grouped by scenario, keeping the scenarios run through at least two SFUs.
 * @param {SfuRun[]} runs
 * @returns {SfuComparison[]}
 */
export function sfuComparisonsOf(runs) {
  const scenarios = [...new Set(runs.map((run) => run.scenario))];
  return scenarios.map((scenario) => runs.filter((run) => run.scenario === scenario))
    .filter((mine) => new Set(mine.map((run) => run.sfu).filter(Boolean)).size > 1).map(compareSfus);
}
