// The scenario files with competing flows (cross traffic, media vs data, RFC 8867) against their sources, number by
// number: the table below is transcribed from J16 §8-4, J18 §4.3, I22 §III-B and §VIII-A, and RFC 8867 §5
// (draft-ietf-rmcat-eval-test-03 for the wording), independently of the files, so a typo in either fails here.
// The files are read as JSON: what the loader makes of `flows` is lib/cross/flows.js's test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { METRIC_PATHS } from '../../orchestrator/lib/result/metric-catalogue.js';

const DIR = new URL('../../orchestrator/scenarios/', import.meta.url);
const read = (name) => JSON.parse(readFileSync(new URL(`${name}.json`, DIR), 'utf8'));

// RFC 8867 gives each flow's end as the test's last second (e.g. 119 s of a 120-s test); the files let such flows
// run to the end of the run (no stopS), like the main call, which runs from `mainCall.startS` to the end.
/** RMCAT's and I22's media flows are one-way. */
const ONE_WAY = { startS: 0, direction: 'forward' };
const RUNS_TO_END = /** @type {'end'} */ ('end');

/**
 * @typedef {{ name: string, kind: string, startS: number, stopS?: number|'end', direction?: string,
 *   pauses?: {atS: number, durationS: number}[], count?: number, idleMeanS?: number, minBytes?: number,
 *   maxBytes?: number, seed?: number, from?: string, to?: string }} ExpectedFlow
 * @typedef {{ group: string, durationS: number, fwd: number[][], back?: number[][], queueMs?: number,
 *   queuePackets?: number, bottleneckDelayMs: number, flows: ExpectedFlow[], source: RegExp,
 *   metrics?: Record<string, number>, accessDelaysMs?: number[], mainCall?: { startS: number, direction: string } }} Expected
 */

/** @type {Record<string, Expected>} capacities as [atS, kbps]; `back` defaults to `fwd` (both directions) */
const EXPECTED = {
  // J16 §8-4-1: 2 Mbps, call 2 at 1:00, call 3 at 2:00, call 3 dropped at 4:00, 5 minutes; 78 %, Jain 0.98 / 0.94.
  'rtp-cross-traffic': {
    group: 'cross-traffic', durationS: 300, fwd: [[0, 2000]], queuePackets: 50, bottleneckDelayMs: 0,
    flows: [
      { name: 'call-2', kind: 'call', startS: 60, stopS: RUNS_TO_END, direction: 'both' },
      { name: 'call-3', kind: 'call', startS: 120, stopS: 240, direction: 'both' },
    ],
    source: /J16 §8-4-1/,
    // Jain's index weighted over the phases with >= 2 calls: 60-120 and 240-300 s two calls (0.98), 120-240 s three (0.94).
    metrics: { utilization: 0.78, jainIndex: Math.round(((0.98 * 120 + 0.94 * 120) / 240) * 1000) / 1000 },
  },
  // J16 §8-4-2: 2 Mbps, 12-minute call, one ten-minute TCP flow from 1:00; 1408 vs 451 kbps, Jain 0.79.
  'tcp-cross-traffic': {
    group: 'cross-traffic', durationS: 720, fwd: [[0, 2000]], queuePackets: 50, bottleneckDelayMs: 0,
    flows: [{ name: 'tcp', kind: 'tcp', startS: 60, stopS: 660, direction: 'forward' }],
    source: /J16 §8-4-2/,
    metrics: { jainIndex: 0.79 },
  },
  // I22 §III-B: 10 and 5 Mbps, 50 ms RTT, queue = BDP (50 ms at the rate); together / GCC 10 s before SCTP.
  'media-vs-data-10m-together': {
    group: 'media-vs-data', mainCall: ONE_WAY, durationS: 120, fwd: [[0, 10000]], queueMs: 50, bottleneckDelayMs: 25,
    flows: [{ name: 'data', kind: 'data', startS: 0, stopS: RUNS_TO_END, from: 'p0', to: 'p1' }], source: /I22 §III-B, figure 2a/,
  },
  'media-vs-data-10m-media-first': {
    group: 'media-vs-data', mainCall: ONE_WAY, durationS: 120, fwd: [[0, 10000]], queueMs: 50, bottleneckDelayMs: 25,
    flows: [{ name: 'data', kind: 'data', startS: 10, stopS: RUNS_TO_END, from: 'p0', to: 'p1' }], source: /I22 §III-B, figure 2b/,
  },
  'media-vs-data-10m-data-first': {
    group: 'media-vs-data', mainCall: { startS: 10, direction: 'forward' }, durationS: 120, fwd: [[0, 10000]], queueMs: 50, bottleneckDelayMs: 25,
    flows: [{ name: 'data', kind: 'data', startS: 0, stopS: RUNS_TO_END, from: 'p0', to: 'p1' }], source: /I22 §III-B, figure 2c/,
  },
  'media-vs-data-5m-together': {
    group: 'media-vs-data', mainCall: ONE_WAY, durationS: 120, fwd: [[0, 5000]], queueMs: 50, bottleneckDelayMs: 25,
    flows: [{ name: 'data', kind: 'data', startS: 0, stopS: RUNS_TO_END, from: 'p0', to: 'p1' }], source: /I22 §III-B, figure 3a/,
  },
  'media-vs-data-5m-media-first': {
    group: 'media-vs-data', mainCall: ONE_WAY, durationS: 120, fwd: [[0, 5000]], queueMs: 50, bottleneckDelayMs: 25,
    flows: [{ name: 'data', kind: 'data', startS: 10, stopS: RUNS_TO_END, from: 'p0', to: 'p1' }], source: /I22 §III-B, figure 3b/,
  },
  'media-vs-data-5m-data-first': {
    group: 'media-vs-data', mainCall: { startS: 10, direction: 'forward' }, durationS: 120, fwd: [[0, 5000]], queueMs: 50, bottleneckDelayMs: 25,
    flows: [{ name: 'data', kind: 'data', startS: 0, stopS: RUNS_TO_END, from: 'p0', to: 'p1' }], source: /I22 §III-B, figure 3c/,
  },
  // I22 §VIII-A, table 5 uncoupled: 2 Mbps, 100 ms RTT, 300 ms queue, GCC at 0 s, SCTP at 10 s; Jain 0.556, GCC RTT 268 ms.
  'media-vs-data-2m-uncoupled': {
    group: 'media-vs-data', mainCall: ONE_WAY, durationS: 120, fwd: [[0, 2000]], queueMs: 300, bottleneckDelayMs: 50,
    flows: [{ name: 'data', kind: 'data', startS: 10, stopS: RUNS_TO_END, from: 'p0', to: 'p1' }], source: /I22 §VIII-A, table 5/,
    metrics: { jainIndex: 0.556, rttMs: 268 },
  },
  // RFC 8867 §5.1 table 1: ratios 1.0, 2.5, 0.6, 1.0 (1 Mbps reference) at 0, 40, 60, 80 s; media 0-99 s; 100 s.
  'rmcat-5.1': {
    group: 'rmcat', mainCall: ONE_WAY, durationS: 100, fwd: [[0, 1000], [40, 2500], [60, 600], [80, 1000]], queueMs: 300, bottleneckDelayMs: 50,
    flows: [], source: /RFC 8867 §5\.1/,
  },
  // §5.2 table 2: ratios 2.0, 1.0, 1.75, 0.5, 1.0 (2 Mbps reference) at 0, 25, 50, 75, 100 s; two media from 0 s; 125 s.
  'rmcat-5.2': {
    group: 'rmcat', mainCall: ONE_WAY, durationS: 125, fwd: [[0, 4000], [25, 2000], [50, 3500], [75, 1000], [100, 2000]], queueMs: 300,
    bottleneckDelayMs: 50, flows: [{ name: 'media-2', kind: 'call', startS: 0, stopS: RUNS_TO_END, direction: 'forward' }],
    source: /RFC 8867 §5\.2/,
  },
  // §5.3 tables 3 and 4 (1 Mbps reference): forward 2.0, 1.0, 0.5, 2.0 at 0, 20, 40, 60 s; backward 2.0, 0.8, 2.0 at 0, 35, 70 s.
  'rmcat-5.3': {
    group: 'rmcat', durationS: 100, fwd: [[0, 2000], [20, 1000], [40, 500], [60, 2000]], back: [[0, 2000], [35, 800], [70, 2000]],
    queueMs: 300, bottleneckDelayMs: 50, flows: [], source: /RFC 8867 §5\.3/,
  },
  // §5.4 table 5: 3.5 Mbps; flows start 0, 20, 40 s, end 119 s; 120 s.
  'rmcat-5.4': {
    group: 'rmcat', mainCall: ONE_WAY, durationS: 120, fwd: [[0, 3500]], queueMs: 300, bottleneckDelayMs: 50,
    flows: [
      { name: 'media-2', kind: 'call', startS: 20, stopS: RUNS_TO_END, direction: 'forward' },
      { name: 'media-3', kind: 'call', startS: 40, stopS: RUNS_TO_END, direction: 'forward' },
    ],
    source: /RFC 8867 §5\.4/,
  },
  // §5.5 table 6: one-way delays 10, 25, 50, 100, 150 ms; starts 0, 10, 20, 30, 40 s, end 299 s; 300 s; 4 Mbps (as cisco/ns3-rmcat).
  'rmcat-5.5': {
    group: 'rmcat', mainCall: ONE_WAY, durationS: 300, fwd: [[0, 4000]], queueMs: 300, bottleneckDelayMs: 0, accessDelaysMs: [10, 25, 50, 100, 150],
    flows: [10, 20, 30, 40].map((startS, i) => ({ name: `media-${i + 2}`, kind: 'call', startS, stopS: RUNS_TO_END, direction: 'forward' })),
    source: /RFC 8867 §5\.5/,
  },
  // §5.6: 2 Mbps, queue 300 ms and 1000 ms, long TCP 0-119 s, media 5-119 s; 120 s.
  'rmcat-5.6-300ms': {
    group: 'rmcat', durationS: 120, fwd: [[0, 2000]], queueMs: 300, bottleneckDelayMs: 50, mainCall: { startS: 5, direction: 'forward' },
    flows: [{ name: 'tcp', kind: 'tcp', startS: 0, stopS: RUNS_TO_END, direction: 'forward' }], source: /RFC 8867 §5\.6/,
  },
  'rmcat-5.6-1000ms': {
    group: 'rmcat', durationS: 120, fwd: [[0, 2000]], queueMs: 1000, bottleneckDelayMs: 50, mainCall: { startS: 5, direction: 'forward' },
    flows: [{ name: 'tcp', kind: 'tcp', startS: 0, stopS: RUNS_TO_END, direction: 'forward' }], source: /RFC 8867 §5\.6/,
  },
  // §5.7: 2 Mbps, two media 5-299 s, ten short TCP flows (exponential idle, mean 10 s; 30-50 KB); 300 s.
  'rmcat-5.7': {
    group: 'rmcat', durationS: 300, fwd: [[0, 2000]], queueMs: 300, bottleneckDelayMs: 50, mainCall: { startS: 5, direction: 'forward' },
    flows: [
      { name: 'media-2', kind: 'call', startS: 5, stopS: RUNS_TO_END, direction: 'forward' },
      ...Array.from({ length: 10 }, (_, i) => ({ name: `short-tcp-${i + 1}`, kind: 'tcp-short', startS: 0, stopS: RUNS_TO_END, direction: 'forward', idleMeanS: 10, minBytes: 30000, maxBytes: 50000, seed: i + 1 })),
    ],
    source: /RFC 8867 §5\.7/,
  },
  // §5.8 (5.4's set-up): 3.5 Mbps, three media from 0 s to 119 s, flow 2 paused at 40 s and resumed at 60 s; 120 s.
  'rmcat-5.8': {
    group: 'rmcat', mainCall: ONE_WAY, durationS: 120, fwd: [[0, 3500]], queueMs: 300, bottleneckDelayMs: 50,
    flows: [
      { name: 'media-2', kind: 'call', startS: 0, stopS: RUNS_TO_END, direction: 'forward', pauses: [{ atS: 40, durationS: 20 }] },
      { name: 'media-3', kind: 'call', startS: 0, stopS: RUNS_TO_END, direction: 'forward' },
    ],
    source: /RFC 8867 §5\.8/,
  },
};

/** Does a schedule entry's `links` reach this directional bottleneck link? (contract §1: "bottleneck" is both) */
const reaches = (links, direction) => links === 'bottleneck' || links === 'all'
  || (Array.isArray(links) && (links.includes('bottleneck') || links.includes(`bottleneck.${direction}`)));

/** The [atS, rateKbps] steps a file gives one direction of its bottleneck, the initial rate first. */
function capacitySchedule(file, direction) {
  const { bottleneck, bottleneckBack = {}, schedule = [] } = file.network;
  const initial = direction === 'back' ? { ...bottleneck, ...bottleneckBack } : bottleneck;
  const steps = schedule.filter((entry) => entry.set && 'rateKbps' in entry.set && reaches(entry.links ?? 'uplinks', direction))
    .map((entry) => [entry.at, entry.set.rateKbps]);
  assert.deepEqual(schedule.filter((entry) => entry.ramp), [], `${file.name}: no ramps (the sources give steps)`);
  return [[0, initial.rateKbps], ...steps].sort((a, b) => a[0] - b[0]);
}

/** A file's flow as the grammar resolves its defaults (contract §2), without the fields the table leaves out. */
function resolvedFlow(flow, durationS, expected) {
  const defaults = { startS: 0, stopS: durationS };
  if (flow.kind === 'call') defaults.direction = 'both';
  if (['tcp', 'tcp-short', 'udp'].includes(flow.kind)) defaults.direction = 'forward';
  if (flow.kind === 'data') Object.assign(defaults, { from: 'p0', to: 'p1' });
  const resolved = { ...defaults, ...flow };
  return Object.fromEntries(Object.keys(expected).map((key) => [key, resolved[key]]));
}

test('every issue-12 group holds exactly the tabled scenarios', () => {
  const groups = new Set(Object.values(EXPECTED).map((e) => e.group));
  const members = readdirSync(DIR).filter((f) => f.endsWith('.json')).map((f) => read(f.slice(0, -5)))
    .filter((s) => groups.has(s.group)).map((s) => s.name).sort();
  assert.deepEqual(members, Object.keys(EXPECTED).sort());
});

for (const [name, expected] of Object.entries(EXPECTED)) {
  test(`${name}: duration, capacities, queue, delays and flows match the source`, () => {
    const file = read(name);
    assert.equal(file.name, name);
    assert.ok(file.description.length > 20, 'a description for list');
    assert.equal(file.group, expected.group);
    assert.equal(file.durationS, expected.durationS);
    assert.equal(file.warmupS, 10);
    assert.equal(file.peers, 2, 'the main call is two peers, flow `call`');

    assert.deepEqual(capacitySchedule(file, 'fwd'), expected.fwd, 'bottleneck.fwd capacity schedule');
    assert.deepEqual(capacitySchedule(file, 'back'), expected.back ?? expected.fwd, 'bottleneck.back capacity schedule');
    const { bottleneck } = file.network;
    assert.equal(bottleneck.queueMs, expected.queueMs);
    assert.equal(bottleneck.queuePackets, expected.queuePackets);
    assert.equal(bottleneck.oneWayDelayMs ?? 0, expected.bottleneckDelayMs, 'propagation delay on each bottleneck direction');

    assert.deepEqual({ startS: 0, direction: 'both', ...file.mainCall }, expected.mainCall ?? { startS: 0, direction: 'both' }, 'mainCall');
    const flows = file.flows ?? [];
    assert.deepEqual(flows.map((flow, i) => resolvedFlow(flow, file.durationS, expected.flows[i] ?? {})),
      expected.flows.map((flow) => ({ ...flow, ...(flow.stopS === RUNS_TO_END ? { stopS: file.durationS } : {}) })));
    for (const flow of flows) {
      const { startS = 0, stopS = file.durationS } = flow;
      assert.ok(startS >= 0 && startS < stopS && stopS <= file.durationS, `${flow.name} inside the run`);
      for (const pause of flow.pauses ?? []) assert.ok(pause.atS >= startS && pause.atS + pause.durationS <= stopS, `${flow.name} pause inside it`);
    }

    // Per-flow access delays (RFC 8867 §5.5): the main call is p0/p1, call flows take p2/p3, p4/p5... in file order;
    // both uplinks of a pair carry the flow's one-way delay, so its media and its feedback each see it.
    const callPairs = [['p0', 'p1'], ...flows.filter((f) => f.kind === 'call').map((_, i) => [`p${2 + 2 * i}`, `p${3 + 2 * i}`])];
    const uplinkDelayMs = (peer) => file.network.peers?.[peer]?.uplink?.oneWayDelayMs ?? file.network.link?.oneWayDelayMs ?? 0;
    const accessDelaysMs = callPairs.map(([left, right]) => {
      assert.equal(uplinkDelayMs(left), uplinkDelayMs(right), `${left}/${right}: the same delay each way`);
      return uplinkDelayMs(left);
    });
    assert.deepEqual(accessDelaysMs, expected.accessDelaysMs ?? callPairs.map(() => 0));

    const { reference } = file;
    assert.match(reference.source, expected.source);
    assert.ok(reference.notes.length > 100, 'the expected behaviour as comparison text');
    const metrics = reference.metrics ?? {};
    assert.deepEqual(Object.keys(metrics).filter((key) => !METRIC_PATHS.includes(key)), [], 'metric keys are catalogue paths');
    assert.deepEqual(Object.fromEntries(Object.entries(metrics).map(([key, value]) => [key, value.mean])), expected.metrics ?? {});
    if (expected.group === 'rmcat') {
      assert.match(reference.notes, /150 kbps - 1\.5 Mbps/, 'the media rate bounds the harness does not set are named');
      assert.match(reference.notes, /Expected behaviour \(RFC 8867 §5\.\d\)/);
    }
  });
}
