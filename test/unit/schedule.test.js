import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import {
  compileNetwork, configuredAt, configuredTimeline, groupScheduleEvents,
  withoutPeers,
} from '../../orchestrator/lib/network/schedule.js';
import { findScheduleClash, rampValue } from '../../orchestrator/lib/network/schedule-entries.js';
import { MAX_DURATION_S, MAX_SCHEDULE_CHANGES, MAX_SCHEDULE_ENTRIES } from '../../orchestrator/lib/input/limits.js';

/** @param {object} network @param {object} [extra] */
const compile = (network, extra = {}, options = {}) => compileNetwork({ file: 'x.json', durationS: 300, network, ...extra }, options);
const delayAt = (compiled, tS, link = 'p0.up') => configuredAt(compiled, tS)[link].oneWayDelayMs;

test('conditions go on every uplink; routes cross the sender uplink, the bottleneck, the receiver downlink', () => {
  const two = compile({ link: { oneWayDelayMs: 100 } });
  assert.deepEqual(Object.keys(two.links), ['p0.up', 'p0.down', 'p1.up', 'p1.down']);
  assert.equal(two.links['p1.up'].oneWayDelayMs, 100);
  assert.equal(two.links['p0.down'].oneWayDelayMs, 0);
  assert.deepEqual(two.routes, { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] });
});

test('a bottleneck is two links, left -> right and right -> left; only routes between the sides cross it', () => {
  const four = compile({ bottleneck: { rateKbps: 2000, queueMs: 300 } }, { peers: 4 });
  assert.deepEqual(Object.keys(four.links), ['p0.up', 'p0.down', 'p1.up', 'p1.down', 'p2.up', 'p2.down', 'p3.up', 'p3.down', 'bottleneck.fwd', 'bottleneck.back']);
  // p0, p2 left; p1, p3 right
  assert.deepEqual(four.routes, {
    'p0->p1': ['p0.up', 'bottleneck.fwd', 'p1.down'],
    'p0->p2': ['p0.up', 'p2.down'],
    'p0->p3': ['p0.up', 'bottleneck.fwd', 'p3.down'],
    'p1->p0': ['p1.up', 'bottleneck.back', 'p0.down'],
    'p1->p2': ['p1.up', 'bottleneck.back', 'p2.down'],
    'p1->p3': ['p1.up', 'p3.down'],
    'p2->p0': ['p2.up', 'p0.down'],
    'p2->p1': ['p2.up', 'bottleneck.fwd', 'p1.down'],
    'p2->p3': ['p2.up', 'bottleneck.fwd', 'p3.down'],
    'p3->p0': ['p3.up', 'bottleneck.back', 'p0.down'],
    'p3->p1': ['p3.up', 'p1.down'],
    'p3->p2': ['p3.up', 'bottleneck.back', 'p2.down'],
  });
  for (const name of ['bottleneck.fwd', 'bottleneck.back']) {
    assert.deepEqual([four.links[name].rateKbps, four.links[name].queueMs, four.links[name].queuePackets], [2000, 300, null], name);
  }
});

test('network.bottleneckBack is merged field by field over network.bottleneck for bottleneck.back only', () => {
  const { links } = compile({
    bottleneck: { rateKbps: 2000, queueMs: 300, oneWayDelayMs: 20, lossPct: 1 },
    bottleneckBack: { rateKbps: 500, queuePackets: 20 },
  });
  const fields = (params) => [params.rateKbps, params.queuePackets, params.queueMs, params.oneWayDelayMs, params.lossPct];
  assert.deepEqual(fields(links['bottleneck.fwd']), [2000, null, 300, 20, 1]);
  // a queue field replaces the queue as a whole; the rest comes from network.bottleneck
  assert.deepEqual(fields(links['bottleneck.back']), [500, 20, null, 20, 1]);
  assert.throws(() => compile({ bottleneckBack: { rateKbps: 500 } }), (error) => error instanceof InputError
    && error.message === 'x.json: network.bottleneckBack: is merged over network.bottleneck, which is missing; add network.bottleneck (both directions) or remove bottleneckBack');
  assert.throws(() => compile({ bottleneck: {}, bottleneckBack: { lossPct: 101 } }), /x\.json: network\.bottleneckBack\.lossPct: must be a number from 0 to 100, got 101$/);
  assert.throws(() => compile({ bottleneck: { oneWayDelayMs: 20, jitterMs: 10 }, bottleneckBack: { oneWayDelayMs: 5 } }), /x\.json: network\.bottleneckBack: jitterMs 10 is more than oneWayDelayMs 5/);
});

test('schedule selectors: "bottleneck" is both directions, a list may name one, "all" includes both', () => {
  const network = (schedule) => ({ bottleneck: { rateKbps: 2000 }, bottleneckBack: { rateKbps: 1000 }, schedule });
  const both = compile(network([{ at: 30, links: 'bottleneck', set: { rateKbps: 800 } }]));
  assert.deepEqual(both.events.map((e) => `${e.atS} ${e.link} ${e.params.rateKbps}`), ['30 bottleneck.fwd 800', '30 bottleneck.back 800']);
  const back = compile(network([{ at: 30, links: ['bottleneck.back'], set: { lossPct: 5 } }]));
  assert.deepEqual(back.events.map((e) => `${e.link} ${e.params.rateKbps} ${e.params.lossPct}`), ['bottleneck.back 1000 5']);
  const all = compile(network([{ at: 30, links: 'all', set: { lossPct: 1 } }]));
  assert.deepEqual(all.events.map((e) => e.link).slice(-2), ['bottleneck.fwd', 'bottleneck.back']);
  assert.equal(all.events.length, 6);
  assert.throws(() => compile(network([{ at: 1, links: ['bottleneck'], set: { lossPct: 1 } }])),
    /network\.schedule\[0\]\.links: unknown link "bottleneck"; this scenario has p0\.up, p0\.down, p1\.up, p1\.down, bottleneck\.fwd, bottleneck\.back$/);
});

test('an old scenario with network.bottleneck loads, its bottleneck now in both directions', () => {
  const { compiled } = loadScenario('test/fixtures/scenarios/three-peers-bottleneck.json');
  assert.deepEqual(compiled.events.map((e) => `${e.atS} ${e.link} ${e.params.rateKbps}`), ['30 bottleneck.fwd 1000', '30 bottleneck.back 1000']);
  assert.deepEqual(compiled.routes['p2->p1'], ['p2.up', 'bottleneck.fwd', 'p1.down']);
});

test('an SFU call routes every flow between a peer and the linkless SFU node: in over the uplink, out over the downlink', () => {
  const { routes } = compile({ bottleneck: { rateKbps: 2000 } }, { peers: 3, topology: 'sfu' });
  // The SFU sits on the right: left peers cross the bottleneck both ways, right peers never.
  assert.deepEqual(routes, {
    'p0->sfu': ['p0.up', 'bottleneck.fwd'], 'sfu->p0': ['bottleneck.back', 'p0.down'],
    'p1->sfu': ['p1.up'], 'sfu->p1': ['p1.down'],
    'p2->sfu': ['p2.up', 'bottleneck.fwd'], 'sfu->p2': ['bottleneck.back', 'p2.down'],
  });
  // No peer-to-peer route: media between peers must go through Janus.
  assert.deepEqual(compile({}, { peers: 2, topology: 'sfu' }).routes, { 'p0->sfu': ['p0.up'], 'sfu->p0': ['p0.down'], 'p1->sfu': ['p1.up'], 'sfu->p1': ['p1.down'] });
});

test('per-peer params override network.link field by field', () => {
  const { links } = compile({
    link: { rateKbps: 1000, lossPct: 5 },
    peers: { p1: { uplink: { rateKbps: 500 }, downlink: { oneWayDelayMs: 40 } } },
  });
  assert.equal(links['p0.up'].rateKbps, 1000);
  assert.deepEqual([links['p1.up'].rateKbps, links['p1.up'].lossPct], [500, 5]);
  assert.deepEqual([links['p1.down'].oneWayDelayMs, links['p1.down'].lossPct, links['p1.down'].rateKbps], [40, 0, null]);
});

test('changing-bandwidth: per-minute steps on both uplinks only', () => {
  const { compiled } = loadScenario('changing-bandwidth');
  assert.deepEqual(compiled.events.map((e) => `${e.atS} ${e.link} ${e.params.rateKbps}`), [
    '60 p0.up 3000', '60 p1.up 3000', '120 p0.up 500', '120 p1.up 500',
    '180 p0.up 1500', '180 p1.up 1500', '240 p0.up 1000', '240 p1.up 1000',
  ]);
  const rateAt = (tS) => configuredAt(compiled, tS)['p1.up'].rateKbps;
  assert.deepEqual([0, 59.9, 60, 150, 299].map(rateAt), [1000, 1000, 3000, 500, 1000]);
  assert.equal(configuredAt(compiled, 150)['p0.down'].rateKbps, null);
  assert.equal(compiled.events[0].cause, 'network.schedule[0] step');
});

test('latency-variation: exponential and linear ramps re-applied every 0.5 s', () => {
  const { compiled } = loadScenario('latency-variation');
  // exponential 0 → 250 ms over 0–60 s: (0 + 1) · 251^x − 1
  assert.equal(delayAt(compiled, 0), 0);
  assert.equal(delayAt(compiled, 30), 14.843); // √251 − 1
  assert.equal(delayAt(compiled, 45), 62.06); // 251^0.75 − 1
  assert.equal(delayAt(compiled, 60), 250);
  assert.equal(delayAt(compiled, 90), 250, 'held through minute 1–2');
  // linear 250 → 0 over 120–180 s, then 0 → 500 over 180–240 s
  assert.equal(delayAt(compiled, 120.5), 247.917);
  assert.equal(delayAt(compiled, 150), 125);
  assert.equal(delayAt(compiled, 150.25), 125, 'values hold between 0.5 s steps');
  assert.equal(delayAt(compiled, 180), 0);
  assert.equal(delayAt(compiled, 210), 250);
  // exponential 500 → 0 over 240–300 s falls fast first: 501 · 501^−x − 1
  assert.equal(delayAt(compiled, 270), 21.383); // √501 − 1
  assert.equal(delayAt(compiled, 300), 0);
  assert.equal(delayAt(compiled, 270, 'p1.up'), 21.383);
  assert.equal(delayAt(compiled, 270, 'p1.down'), 0);

  const upTimes = compiled.events.filter((e) => e.link === 'p0.up').map((e) => e.atS);
  assert.deepEqual(upTimes.slice(0, 3), [0.5, 1, 1.5]);
  assert.ok(upTimes.length > 0, 'upTimes: nothing to check');
  assert.ok(upTimes.every((t) => Number.isInteger(t * 2)), 'every change is on the 0.5 s grid');
  assert.equal(upTimes.filter((t) => t > 60 && t < 120).length, 0, 'no events while the delay holds');
  assert.equal(compiled.events.find((e) => e.atS === 30).cause, 'network.schedule[0] ramp step 60/120');
});

test('rampValue: endpoints exact, exponential is geometric between offsets from the floor', () => {
  const exp = { shape: 'exponential', from: 1000, to: 4000, floor: 1 };
  assert.equal(rampValue(exp, 0), 1000);
  assert.equal(rampValue(exp, 1), 4000);
  assert.ok(Math.abs(rampValue(exp, 0.5) - (Math.sqrt(1001 * 4001) - 1)) < 1e-9);
  assert.equal(rampValue({ shape: 'linear', from: 500, to: 0, floor: 1 }, 0.25), 375);
});

test('time scaling compresses at and ramp durations but keeps everyS', () => {
  const bandwidth = loadScenario('changing-bandwidth', { timeScale: 0.1 });
  assert.equal(bandwidth.durationS, 30);
  assert.equal(bandwidth.nominalDurationS, 300);
  assert.deepEqual([...new Set(bandwidth.compiled.events.map((e) => e.atS))], [6, 12, 18, 24]);

  const latency = loadScenario('latency-variation', { timeScale: 0.1 });
  const firstRamp = latency.compiled.events.filter((e) => e.link === 'p0.up' && e.atS <= 6);
  assert.equal(firstRamp.length, 12, '6 s ramp at 0.5 s steps');
  assert.equal(firstRamp.at(-1).cause, 'network.schedule[0] ramp step 12/12');
  assert.equal(delayAt(latency.compiled, 3), 14.843);
  assert.equal(delayAt(latency.compiled, 6), 250);
  assert.equal(delayAt(latency.compiled, 21), 250, '0 → 500 linear over 18–24 s');
});

test('a step that does not divide the ramp still lands on the ramp end', () => {
  const compiled = compile({ schedule: [{ at: 10, ramp: { field: 'lossPct', from: 0, to: 10, durationS: 1, everyS: 0.4 } }] });
  assert.deepEqual(compiled.events.filter((e) => e.link === 'p0.up').map((e) => [e.atS, e.params.lossPct]),
    [[10.4, 4], [10.8, 8], [11, 10]]);
});

test('entries at t = 0 are folded into links; no-op changes emit no events; same-instant changes merge', () => {
  const compiled = compile({
    link: { rateKbps: 1000 },
    schedule: [
      { at: 0, set: { lossPct: 2 } },
      { at: 30, set: { rateKbps: 1000 } },
      { at: 60, set: { rateKbps: 500 } },
      { at: 60, links: ['p0.up'], set: { oneWayDelayMs: 20 } },
      { at: 90, links: 'downlinks', set: { queueMs: 200 } },
    ],
  });
  assert.equal(compiled.links['p0.up'].lossPct, 2);
  assert.ok(compiled.events.length > 0, 'compiled.events: nothing to check');
  assert.ok(compiled.events.every((e) => e.atS > 0));
  assert.equal(compiled.events.filter((e) => e.atS === 30).length, 0);
  const p0At60 = compiled.events.filter((e) => e.atS === 60 && e.link === 'p0.up');
  assert.equal(p0At60.length, 1);
  assert.deepEqual([p0At60[0].params.rateKbps, p0At60[0].params.oneWayDelayMs, p0At60[0].params.lossPct], [500, 20, 2]);
  assert.equal(p0At60[0].cause, 'network.schedule[2] step; network.schedule[3] step');
  const down = compiled.events.find((e) => e.atS === 90 && e.link === 'p1.down');
  assert.deepEqual([down.params.queueMs, down.params.queuePackets], [200, null]);
});

test('groupScheduleEvents: one group per instant, in time order, events in their given order', () => {
  const event = (atS, link) => ({ atS, link });
  assert.deepEqual(groupScheduleEvents([event(60, 'p0.up'), event(30, 'p1.up'), event(60, 'p1.up'), event(30, 'p0.down')]), [
    { atS: 30, events: [event(30, 'p1.up'), event(30, 'p0.down')] },
    { atS: 60, events: [event(60, 'p0.up'), event(60, 'p1.up')] },
  ]);
  assert.deepEqual(groupScheduleEvents([]), []);
  const groups = groupScheduleEvents(loadScenario('changing-bandwidth').compiled.events);
  assert.deepEqual(groups.map((group) => [group.atS, group.events.map((e) => e.link)]),
    [60, 120, 180, 240].map((atS) => [atS, ['p0.up', 'p1.up']]));
});

test('configuredTimeline samples every link at each step, including t = 0 and durationS', () => {
  const { compiled } = loadScenario('changing-bandwidth');
  const rows = configuredTimeline(compiled, 300);
  assert.equal(rows.length, 301 * 4);
  assert.deepEqual(rows[0], { t: 0, link: 'p0.up', rateKbps: 1000, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null, trace: null });
  const rate = (t, link) => rows.find((row) => row.t === t && row.link === link).rateKbps;
  assert.deepEqual([rate(59, 'p0.up'), rate(60, 'p0.up'), rate(300, 'p1.up'), rate(60, 'p1.down')], [1000, 3000, 1000, null]);
  const coarse = configuredTimeline(compiled, 300, 30);
  assert.deepEqual([...new Set(coarse.map((row) => row.t))], [0, 30, 60, 90, 120, 150, 180, 210, 240, 270, 300]);
  assert.deepEqual(configuredTimeline(compiled, 2.5, 0.5).filter((row) => row.link === 'p0.up').map((row) => row.t), [0, 0.5, 1, 1.5, 2, 2.5]);
});

test('schedule validation names the file, the entry and the field', () => {
  const ramp = (at, durationS, extra = {}) => ({ at, ramp: { field: 'oneWayDelayMs', from: 0, to: 100, durationS, ...extra } });
  /** @type {Array<[object, string|RegExp]>} */
  const cases = [
    [{ schedule: [ramp(0, 60), ramp(30, 60)] },
      'x.json: network.schedule[1]: ramp 30–90 s changes oneWayDelayMs on p0.up while network.schedule[0] (ramp 0–60 s) does; make them follow one another (times after time scaling)'],
    [{ schedule: [ramp(0, 60), { at: 20, set: { oneWayDelayMs: 5, lossPct: 1 } }] }, /network\.schedule\[1\]: step at 20 s changes oneWayDelayMs on p0\.up while network\.schedule\[0\]/],
    [{ schedule: [{ at: 20, set: { queueMs: 5 } }, { at: 20, set: { queuePackets: 9 } }] }, /network\.schedule\[1\]: step at 20 s changes queuePackets on p0\.up while network\.schedule\[0\]/],
    [{ schedule: [{ at: 301, set: { lossPct: 1 } }] }, "x.json: network.schedule[0].at: 301 s is beyond the scenario's durationS (300 s); move it earlier or raise durationS"],
    [{ schedule: [ramp(270, 60)] }, /^x\.json: network\.schedule\[0\]\.ramp\.durationS: the ramp ends at 330 s, beyond/],
    [{ schedule: [{ at: 1, links: ['p0.up', 'p3.down'], set: { lossPct: 1 } }] }, /^x\.json: network\.schedule\[0\]\.links: unknown link "p3\.down"; this scenario has p0\.up, p0\.down, p1\.up, p1\.down$/],
    [{ schedule: [{ at: 1, links: 'bottleneck', set: { lossPct: 1 } }] }, /network\.schedule\[0\]\.links: "bottleneck" needs a network\.bottleneck section/],
    [{ schedule: [{ at: 1, links: 'everything', set: { lossPct: 1 } }] }, /\.links: must be one of uplinks, downlinks, all, bottleneck/],
    [{ schedule: [{ at: 1, set: { delayMs: 1 } }] }, /^x\.json: network\.schedule\[0\]\.set: unknown field 'delayMs'/],
    [{ schedule: [{ at: 1, set: { lossPct: 120 } }] }, 'x.json: network.schedule[0].set.lossPct: must be a number from 0 to 100, got 120'],
    [{ schedule: [{ at: 1, set: {} }] }, /network\.schedule\[0\]\.set: is empty/],
    [{ schedule: [{ at: 1 }] }, 'x.json: network.schedule[0]: needs exactly one of "set" (a step), "ramp" or "handover" (a peer changes network)'],
    [{ schedule: [{ at: -1, set: { lossPct: 1 } }] }, /network\.schedule\[0\]\.at: must be a number >= 0, got -1/],
    [{ schedule: [ramp(0, 60, { shape: 'cubic' })] }, /\.ramp\.shape: must be one of linear, exponential, got "cubic"/],
    [{ schedule: [ramp(0, 60, { floor: 2 })] }, /\.ramp\.floor: applies only to shape "exponential"/],
    [{ schedule: [{ at: 0, ramp: { field: 'delayMs', from: 0, to: 1, durationS: 1 } }] }, /\.ramp\.field: must be one of rateKbps, oneWayDelayMs, jitterMs, lossPct, got "delayMs"/],
    [{ schedule: [{ at: 0, ramp: { field: 'rateKbps', from: 0, to: 1000, durationS: 1 } }] }, /\.ramp\.from: must be a number from 8 to 10000000, got 0/],
    [{ schedule: [ramp(0, 60, { everyS: 0 })] }, /\.ramp\.everyS: must be a number from 0\.1 to 86400, got 0/],
    [{ schedule: {} }, /network\.schedule: must be an array/],
    [{ peers: { p2: {} } }, "x.json: network.peers: unknown field 'p2'; allowed: p0, p1"],
    [{ peers: { p0: { up: {} } } }, "x.json: network.peers.p0: unknown field 'up'; allowed: uplink, downlink"],
    [{ bottleneck: { rateKbps: -5 } }, 'x.json: network.bottleneck.rateKbps: must be a number from 8 to 10000000, got -5'],
    [{ linkx: {} }, /^x\.json: network: unknown field 'linkx'/],
  ];
  for (const [network, expected] of cases) {
    assert.throws(() => compile(network), (error) => {
      assert.ok(error instanceof InputError, `InputError for ${JSON.stringify(network)}`);
      if (typeof expected === 'string') assert.equal(error.message, expected);
      else assert.match(error.message, expected);
      return true;
    });
  }
});

test('rules between fields hold for what all entries at one instant leave, and name the entry, link and time', () => {
  const lowerBoth = (first, second) => compile({
    link: { oneWayDelayMs: 50, jitterMs: 10 },
    schedule: [{ at: 60, set: first }, { at: 60, set: second }],
  });
  for (const compiled of [lowerBoth({ oneWayDelayMs: 0 }, { jitterMs: 0 }), lowerBoth({ jitterMs: 0 }, { oneWayDelayMs: 0 })]) {
    assert.deepEqual(configuredAt(compiled, 60)['p0.up'].oneWayDelayMs, 0);
  }
  assert.throws(() => compile({ link: { oneWayDelayMs: 50, jitterMs: 10 }, schedule: [{ at: 30, ramp: { field: 'oneWayDelayMs', from: 50, to: 0, durationS: 60 } }] }),
    /^InputError: x\.json: network\.schedule\[0\]\.ramp, on p0\.up at 78\.5 s: jitterMs 10 is more than oneWayDelayMs 9\.583/);
  assert.throws(() => compile({ link: { queueMs: 60_000 }, schedule: [{ at: 10, set: { rateKbps: 200_000 } }] }),
    /network\.schedule\[0\]\.set, on p0\.up at 10 s: queueMs 60000 at rateKbps 200000 is a 1500000000-byte queue/);
  const delayRamp = (extra) => ({ at: 0, ramp: { field: 'oneWayDelayMs', from: 0, to: 100, durationS: 60, ...extra } });
  assert.throws(() => compile({ schedule: [delayRamp({ floor: 1e300, shape: 'exponential' })] }), /\.ramp\.floor: must be a number > 0 and <= 10000000, got 1e\+300/);
  assert.throws(() => compile({ schedule: [delayRamp({ everyS: 1e-300 })] }), /\.ramp\.everyS: must be a number from 0\.1 to 86400/);
});

test('ramps may touch end to start, and steps may sit on a ramp boundary', () => {
  const compiled = compile({
    schedule: [
      { at: 0, ramp: { field: 'oneWayDelayMs', from: 0, to: 100, durationS: 10 } },
      { at: 10, ramp: { field: 'oneWayDelayMs', from: 100, to: 0, durationS: 10 } },
      { at: 20, set: { oneWayDelayMs: 50 } },
      { at: 5, set: { lossPct: 3 } },
    ],
  });
  assert.equal(delayAt(compiled, 10), 100);
  assert.equal(delayAt(compiled, 20), 50);
  assert.equal(configuredAt(compiled, 5)['p0.up'].lossPct, 3);
});

test('a ramp every 0.1 s over a day is refused by counting its changes, before one is built', () => {
  const dayRamp = (links) => compileNetwork({
    file: 'big.json', durationS: MAX_DURATION_S, peers: 32,
    network: { schedule: [{ at: 0, links, ramp: { field: 'rateKbps', from: 5000, to: 100, durationS: MAX_DURATION_S, everyS: 0.1 } }] },
  });
  // One link: 864 001 changes. All 64 links of 32 peers: 55 million, which took V8 out of memory.
  for (const [links, count] of [[['p0.up'], 864_001], ['all', 864_001 * 64]]) {
    assert.throws(() => dayRamp(links), (error) => error instanceof InputError
      && error.message === `big.json: network.schedule: compiles to ${count} link changes (network.schedule[0] alone ${count}); at most ${MAX_SCHEDULE_CHANGES} (docs/scenario-format.md "Limits"): raise a ramp's everyS, shorten it or name fewer links`);
  }
  // Every 0.2 s on one link fits.
  const fits = compileNetwork({
    file: 'f.json', durationS: MAX_DURATION_S,
    network: { schedule: [{ at: 0, links: ['p0.up'], ramp: { field: 'rateKbps', from: 5000, to: 100, durationS: MAX_DURATION_S, everyS: 0.2 } }] },
  });
  assert.equal(fits.events.length, 432_000);
});

test('a schedule of more entries than the limit is refused naming network.schedule', () => {
  const schedule = Array.from({ length: MAX_SCHEDULE_ENTRIES + 1 }, (_, i) => ({ at: i / 1000, set: { lossPct: 1 } }));
  assert.throws(() => compile({ schedule }, { durationS: 1000 }), (error) => error instanceof InputError
    && error.message.startsWith(`x.json: network.schedule: ${MAX_SCHEDULE_ENTRIES + 1} entries; at most ${MAX_SCHEDULE_ENTRIES}`));
});

/** @param {number} startS @param {number} index @param {'step'|'ramp'} [kind] @param {number} [endS] */
const entry = (startS, index, kind = 'step', endS = startS) => ({
  index, kind, links: ['p0.up'], fields: ['rateKbps'], startS, endS, changeCount: 1, changes: () => [],
});

test('64 000 steps are checked for overlaps in O(n log n): a few comparisons each, not one per pair', () => {
  const steps = Array.from({ length: 64_000 }, (_, i) => entry(i * 0.5, i));
  const apart = findScheduleClash(steps);
  assert.equal(apart.clash, null);
  assert.ok(apart.comparisons < 2 * steps.length, `${apart.comparisons} comparisons for ${steps.length} steps`);
  // The last one lands on the first one's instant: found, however far apart in the file.
  const clashing = findScheduleClash([...steps, entry(0, 64_000)]);
  assert.deepEqual([clashing.clash?.a.index, clashing.clash?.b.index, clashing.clash?.link], [0, 64_000, 'p0.up']);
  assert.ok(clashing.comparisons < 2 * steps.length);
  // Through compileNetwork, and the message names both entries.
  const schedule = Array.from({ length: 64_000 }, (_, i) => ({ at: i / 1000, links: ['p0.up'], set: { rateKbps: 1000 + (i % 2) } }));
  assert.equal(compile({ schedule }, { durationS: 100 }).events.length, 63_999);
  assert.throws(() => compile({ schedule: [...schedule, { at: 1, links: ['p0.up'], set: { trace: 'synthetic:constant-500' } }] }, { durationS: 100 }),
    /^InputError: x\.json: network\.schedule\[64000\]: step at 1 s changes trace on p0\.up while network\.schedule\[1000\] \(step at 1 s\) does/);
});

test('a step inside a long ramp is an overlap even with other entries sorted between them', () => {
  // ramp 0–100, a step on its first instant (allowed), a step inside it: the ramp, not the neighbour, catches it.
  const { clash } = findScheduleClash([entry(0, 0, 'ramp', 100), entry(0, 1), entry(50, 2)]);
  assert.deepEqual([clash?.a.index, clash?.b.index], [0, 2]);
  assert.equal(findScheduleClash([entry(0, 0, 'ramp', 100), entry(0, 1), entry(100, 2), entry(100, 3, 'ramp', 120)]).clash, null);
  const ramps = findScheduleClash([entry(0, 0, 'ramp', 100), entry(10, 1, 'ramp', 20), entry(50, 2, 'ramp', 60)]);
  assert.deepEqual([ramps.clash?.a.index, ramps.clash?.b.index], [0, 1]);
});

test('an SFU room\'s load participants get links of their own: network.link up, unshaped down, routes to the SFU only; withoutPeers takes them out', () => {
  const compiled = compileNetwork({
    file: 'f.json', topology: 'sfu', peers: 2, loadPeers: ['load0', 'load1'],
    network: { link: { rateKbps: 2000 }, bottleneck: { rateKbps: 5000 }, schedule: [{ at: 30, set: { rateKbps: 1000 } }, { at: 60, links: ['load1.up'], set: { oneWayDelayMs: 40 } }] },
  });
  assert.equal(compiled.links['load0.up'].rateKbps, 2000);
  assert.equal(compiled.links['load0.down'].rateKbps, null, 'unshaped');
  assert.deepEqual(compiled.routes['load1->sfu'], ['load1.up'], 'no bottleneck: a load participant sits on no side');
  assert.deepEqual(compiled.routes['sfu->load1'], ['load1.down']);
  // "uplinks" (a step's default) takes theirs too; a step may name one.
  assert.deepEqual(compiled.events.filter((e) => e.atS === 30).map((e) => e.link).sort(), ['load0.up', 'load1.up', 'p0.up', 'p1.up']);
  assert.deepEqual(compiled.events.filter((e) => e.atS === 60).map((e) => [e.link, e.params.oneWayDelayMs]), [['load1.up', 40]]);

  const browsersOnly = withoutPeers(compiled, ['load0', 'load1']);
  assert.deepEqual(Object.keys(browsersOnly.links).sort(), ['bottleneck.back', 'bottleneck.fwd', 'p0.down', 'p0.up', 'p1.down', 'p1.up']);
  assert.deepEqual(Object.keys(browsersOnly.routes).sort(), ['p0->sfu', 'p1->sfu', 'sfu->p0', 'sfu->p1']);
  assert.deepEqual(browsersOnly.events.map((e) => e.link).sort(), ['p0.up', 'p1.up']);
  assert.ok(compiled.links['load0.up'], 'the compiled network itself is left as it was');
});
