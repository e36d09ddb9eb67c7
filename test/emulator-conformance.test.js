// The emulator contract (orchestrator/emulators/contract.js), checked the same way against every backend: what it
// declares, and for each backend that runs on this host, a real emulator created, reconfigured, read and closed, and
// a paced probe through one shaped link (rate cap, loss, delay where the host can delay) within calibration's
// tolerances. Needs root for netem; run it alone on the machine (the probe measures timing).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { runCalibration, standardCases } from '../orchestrator/emulators/calibration.js';
import { PREFERENCE_FIELDS, SUPPORT_FIELDS } from '../orchestrator/emulators/contract.js';
import { AUTO, BACKENDS, checkSupport, chooseBackend, runEmulators } from '../orchestrator/emulators/index.js';
import { raisePriority } from '../orchestrator/emulators/priority.js';
import { InputError } from '../orchestrator/lib/system/errors.js';
import { normalizeLinkParams } from '../orchestrator/lib/network/link-model.js';

const CASES = ['rate-1000kbps', 'loss-5pct', 'delay-50ms'];
const unavailable = Object.fromEntries(await Promise.all(BACKENDS.map(async (b) => [b.name, await b.unavailable()])));

test('every backend declares its name, a summary, each supports field, and why it lacks what it lacks', () => {
  assert.deepEqual(runEmulators(), [...BACKENDS.map((b) => b.name), AUTO]);
  assert.ok(BACKENDS.length >= 3);
  for (const backend of BACKENDS) {
    assert.match(backend.name, /^[a-z]+(-[a-z]+)*$/);
    assert.ok(backend.summary.length > 20, `${backend.name}: a summary`);
    assert.deepEqual(Object.keys(backend.supports).sort(), [...SUPPORT_FIELDS].sort(), `${backend.name}: every supports field`);
    for (const field of SUPPORT_FIELDS) {
      assert.equal(typeof backend.supports[field], 'boolean', `${backend.name}.supports.${field}`);
      // A backend that replays no trace steps it instead, as the result records: nothing to explain.
      if (!backend.supports[field] && field !== 'traceReplay') assert.match(backend.why?.[field] ?? '', /^which /, `${backend.name}: why no ${field}`);
    }
    assert.equal(typeof backend.create, 'function');
    const reason = unavailable[backend.name];
    assert.ok(reason === null || (typeof reason === 'string' && reason.length > 10), `${backend.name}: unavailable() is null or a reason`);
    assert.ok(backend.gridNodes === undefined || typeof backend.gridNodes === 'boolean', `${backend.name}: gridNodes is a boolean`);
    if (backend.auto) {
      assert.ok(backend.auto.fits.length > 10, `${backend.name}: auto says why it fits`);
      // A fallback is where `auto` ends: it must run anywhere, and carry every scenario another of its candidates carries.
      if (backend.auto.fallback) assert.equal(reason, null, `${backend.name}: an auto fallback runs on any host`);
      if (backend.auto.fallback) assert.equal(backend.auto.unmet, undefined, `${backend.name}: an auto fallback lacks nothing for a network`);
      for (const fallback of BACKENDS.filter((b) => b.auto?.fallback)) {
        // Except a TURN server, which needs a middle namespace, a peer's NAT or firewall, which needs its own kernel
        // path, and a handover, which needs an address of the peer's own to leave: `auto` takes netem for them where
        // netem runs, else refuses.
        const more = SUPPORT_FIELDS.filter((field) => !['turn', 'peerNetwork', 'handover'].includes(field) && backend.supports[field] && !fallback.supports[field]);
        assert.deepEqual(more, [], `${fallback.name}, which \`auto\` is checked as, carries what ${backend.name} does`);
      }
    }
  }
  assert.ok(BACKENDS.some((b) => b.auto?.fallback), 'auto has a fallback');
});

test('auto chooses a backend that declares auto, carries the scenario and runs here, and says why', async () => {
  const compiled = twoPeerNetwork();
  for (const asks of [
    { scenario: 's', sfu: false, directSfu: false, kernelFlow: null, firefoxPeers: [] },
    { scenario: 's', sfu: true, directSfu: false, kernelFlow: { name: 'tcp1', kind: 'tcp' }, firefoxPeers: ['p1'] },
    { scenario: 's', sfu: true, directSfu: true, kernelFlow: null, firefoxPeers: [] },
    { scenario: 's', sfu: false, directSfu: false, kernelFlow: null, firefoxPeers: [], turn: 'tls' },
  ]) {
    assert.doesNotThrow(() => checkSupport(AUTO, asks));
    const { backend, choice } = await chooseBackend(AUTO, asks, compiled);
    assert.ok(backend.auto, `${backend.name} declares auto`);
    assert.equal(unavailable[backend.name], null, `${backend.name} runs here`);
    for (const field of /** @type {const} */ (['sfu', 'firefox', 'kernelFlows', 'turn'])) {
      const asked = {
        sfu: asks.sfu, firefox: asks.firefoxPeers.length > 0, kernelFlows: asks.kernelFlow !== null, turn: Boolean(asks.turn),
      }[field];
      assert.ok(!asked || backend.supports[field], `${backend.name} carries ${field}`);
    }
    assert.match(choice ?? '', new RegExp(`^auto: ${backend.name}[ ,]`));
  }
});

test('a scenario that needs what a backend lacks stops with exit 2 naming the backends that have it', () => {
  // Everything at once, so each backend is refused for each thing it lacks, naming the backends that have it.
  const asks = { scenario: 's', sfu: true, directSfu: true, kernelFlow: { name: 'tcp1', kind: 'tcp' }, firefoxPeers: ['p1'], turn: 'tcp' };
  let checked = 0;
  for (const backend of BACKENDS) {
    // What a backend lacks of PREFERENCE_FIELDS changes how a run goes, never whether it runs.
    const preferences = /** @type {readonly string[]} */ (PREFERENCE_FIELDS);
    const lacking = SUPPORT_FIELDS.filter((field) => !preferences.includes(field) && !backend.supports[field]);
    if (lacking.length === 0) {
      assert.doesNotThrow(() => checkSupport(backend.name, asks), `${backend.name} supports everything`);
      continue;
    }
    checked++;
    assert.throws(() => checkSupport(backend.name, asks), (error) => {
      assert.ok(error instanceof InputError, `${backend.name}: exit 2`);
      for (const field of lacking) {
        const able = BACKENDS.filter((b) => b.supports[field]).map((b) => `--emulator ${b.name}`);
        assert.ok(able.length > 0 && able.every((flag) => error.message.includes(flag)), `${backend.name} names who can do ${field}: ${error.message}`);
      }
      return true;
    });
  }
  assert.ok(checked > 0, 'at least one backend lacks something, so the refusal was exercised');
});

/** A two-peer mesh with p0's uplink capped: what create() gets in a run. */
function twoPeerNetwork() {
  const open = normalizeLinkParams({}, 'conformance');
  return {
    links: { 'p0.up': normalizeLinkParams({ rateKbps: 2000, queueMs: 300 }, 'conformance'), 'p0.down': open, 'p1.up': open, 'p1.down': open },
    routes: { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] },
    events: [], traces: {}, traceStepMs: 100,
  };
}

const namespacesOf = (runId) => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(runId));

for (const backend of BACKENDS) {
  const reason = unavailable[backend.name];
  const skip = reason ? `${backend.name} cannot run on this host: ${reason}` : false;

  test(`${backend.name}: create registers its closer first, then apply, truth and close keep the contract${skip ? ' (skipped: cannot run here)' : ''}`, { skip }, async () => {
    const runId = `cf${backend.name.slice(0, 3)}${process.pid % 1000}`;
    /** @type {string[]} */
    const registered = [];
    const emulator = await backend.create({
      compiled: twoPeerNetwork(), peers: ['p0', 'p1'], runId, durationS: 10,
      registerCleanup: (name, close) => { registered.push(name); return async () => { await close(); }; },
    });
    try {
      assert.equal(registered.length, 1, 'one closer, registered before set-up');
      assert.equal(emulator.name, backend.name);
      assert.equal(typeof emulator.signalingHost, 'string');
      assert.equal(typeof emulator.rewriteCandidate, 'function');
      assert.ok(Array.isArray(emulator.events) && Array.isArray(emulator.commands));
      for (const record of emulator.commands) {
        assert.ok(Number.isFinite(record.atS) && typeof record.cmd === 'string' && typeof record.ok === 'boolean', JSON.stringify(record));
      }
      // The relay process raised its own priority: that command is the run's too.
      if (backend.name === 'relay') assert.match(emulator.commands[0]?.cmd ?? 'none', /^chrt --reset-on-fork --fifo --pid 10 \d+$/);
      assert.equal(Boolean(emulator.tunnels), backend.supports.kernelFlows, 'tunnels exactly where kernel flows are supported');
      await emulator.apply({ 'p0.up': normalizeLinkParams({ rateKbps: 500, queueMs: 200 }, 'conformance') }, 1);
      const rows = await emulator.truth();
      assert.ok(Array.isArray(rows));
      for (const row of rows) assert.ok(Number.isFinite(row.epochMs) && typeof row.link === 'string', JSON.stringify(row));
      if (emulator.load) {
        // A backend that measures itself closes a row of its own load each second.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const load = await emulator.load();
        assert.ok(load.length >= 1, 'no load row after a second');
        for (const row of load) {
          const counted = Number.isInteger(row.packetsIn) && Number.isInteger(row.packetsOut);
          assert.ok(Number.isFinite(row.epochMs) && counted, JSON.stringify(row));
          assert.ok(typeof row.behind === 'boolean' && 'busyPct' in row && 'lateP99Ms' in row && 'lateMaxMs' in row, JSON.stringify(row));
        }
      }
      // A foreign candidate (another host's address) would bypass the emulated links: every backend drops it.
      const foreign = { candidate: 'candidate:1 1 udp 2122260223 192.0.2.7 50000 typ host', sdpMid: '0', sdpMLineIndex: 0 };
      assert.equal(await emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: foreign }), null);
    } finally {
      await emulator.close();
    }
    if (backend.name === 'netem') assert.deepEqual(namespacesOf(`wtb-${runId}`), [], 'close removed every namespace');
  });

  test(`${backend.name}: a paced probe through one shaped link is within calibration's tolerances${skip ? ' (skipped: cannot run here)' : ''}`,
    { skip: skip || (!backend.openProbePath && `${backend.name} has no probe path`) }, async () => {
      // The probe is the measuring instrument, as in `calibrate`: its own scheduling delays would read as emulator error.
      await raisePriority(process.pid);
      const session = await /** @type {NonNullable<typeof backend.openProbePath>} */ (backend.openProbePath)();
      try {
        const cases = standardCases({ durationScale: 0.5 }).filter((c) => CASES.includes(c.name));
        const runnable = cases.filter((c) => !session.skipCase?.(c));
        assert.ok(runnable.some((c) => c.name.startsWith('rate-')) && runnable.some((c) => c.name.startsWith('loss-')), 'rate and loss run on every backend');
        const results = await runCalibration(session.path, runnable);
        assert.equal(results.length, runnable.length);
        assert.deepEqual(results.filter((r) => r.failures.length).map((r) => `${r.name}: ${r.failures.join('; ')}`), []);
      } finally {
        await session.close();
      }
    });
}
