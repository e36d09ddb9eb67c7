import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIRST_PORT, NAMESPACE_PREFIX, planKernelFlows } from '../../orchestrator/cross/kernel-flow-plan.js';

/** @type {import('../../orchestrator/cross/kernel-flow-plan.js').KernelFlow[]} */
const FLOWS = [
  { name: 'tcp', kind: 'tcp', startS: 60, stopS: 660.4 },
  { name: 'cbr', kind: 'udp', rateKbps: 500, startS: 30, stopS: 90, direction: 'backward' },
  { name: 'short', kind: 'tcp-short', startS: 0, stopS: 300, bursts: [{ atS: 3.5, bytes: 30000 }, { atS: 20, bytes: 49999.6 }] },
];

test('names: run-scoped, swept by the wtbx- prefix, TUN names fit IFNAMSIZ for 100 flows of a long run id', () => {
  const plan = planKernelFlows(Array.from({ length: 100 }, (_, i) => ({ name: `f${i}`, kind: 'tcp', startS: 0, stopS: 10 })), { runId: 'run-1a2b3c4d' });
  const sides = plan.flows.flatMap(({ left, right }) => [left, right]);
  assert.ok(sides.length > 0, 'sides: nothing to check');
  assert.ok(sides.every(({ tun }) => tun.length <= 15 && tun.startsWith(plan.linkPrefix)), 'IFNAMSIZ is 16 with the NUL');
  assert.ok(plan.namespacePrefix.startsWith(NAMESPACE_PREFIX));
  assert.ok(sides.length > 0, 'sides: nothing to check');
  assert.ok(sides.every(({ namespace }) => namespace.startsWith(plan.namespacePrefix)));
  assert.equal(new Set(sides.map(({ tun }) => tun)).size, 200);
  assert.equal(new Set(sides.map(({ namespace }) => namespace)).size, 200);
  assert.notEqual(planKernelFlows(FLOWS, { runId: 'run-1a2b3c4e' }).namespacePrefix, plan.namespacePrefix);
  assert.throws(() => planKernelFlows(Array.from({ length: 101 }, () => FLOWS[0]), { runId: 'x' }), /at most 100 kernel flows/);
});

test('each flow has its /30; the client sits on the sending side, so iperf3\'s receiver is always its server', () => {
  const [tcp, cbr] = planKernelFlows(FLOWS, { runId: 'r1' }).flows;
  assert.deepEqual([tcp.left.address, tcp.right.address, cbr.left.address, cbr.right.address], ['10.203.0.1', '10.203.0.2', '10.203.1.1', '10.203.1.2']);
  assert.equal(tcp.client, tcp.left);
  assert.equal(tcp.server, tcp.right);
  assert.equal(cbr.client, cbr.right, 'backward: right -> left');
  assert.equal(cbr.server, cbr.left);
});

test('tests: one per long flow, one per burst on its own port; durations in whole seconds; cubic unless told', () => {
  const [tcp, cbr, short] = planKernelFlows(FLOWS, { runId: 'r1' }).flows;
  assert.deepEqual(tcp.tests, [{ index: 0, atS: 60, port: FIRST_PORT, protocol: 'tcp', clientArgs: ['-C', 'cubic', '-t', '600'] }]);
  assert.deepEqual(cbr.tests[0].clientArgs, ['-u', '-b', '500k', '-l', '1200', '-t', '60']);
  assert.deepEqual(short.tests.map(({ atS, port, clientArgs }) => [atS, port, clientArgs.at(-1)]), [[3.5, FIRST_PORT, '30000'], [20, FIRST_PORT + 1, '50000']]);
  assert.deepEqual(planKernelFlows([FLOWS[0]], { runId: 'r1', congestionControl: 'reno' }).flows[0].tests[0].clientArgs.slice(0, 2), ['-C', 'reno']);
  assert.deepEqual(planKernelFlows([{ ...FLOWS[0], stopS: 60.2 }], { runId: 'r1' }).flows[0].tests[0].clientArgs.at(-1), '1', 'at least 1 s');
  // A window cap (windowBytes) is iperf3's -w on every TCP test, a long flow's and each burst's.
  const capped = planKernelFlows([{ ...FLOWS[0], windowBytes: 16384 }, { ...FLOWS[2], windowBytes: 4096 }], { runId: 'r1' }).flows;
  assert.deepEqual(capped[0].tests[0].clientArgs, ['-C', 'cubic', '-w', '16384', '-t', '600']);
  assert.equal(capped[1].tests.length, 2);
  assert.ok(capped[1].tests.every((burst) => burst.clientArgs.join(' ').startsWith('-C cubic -w 4096 -n ')), JSON.stringify(capped[1].tests));
});

test('a flow iperf3 cannot run is refused by name', () => {
  assert.throws(() => planKernelFlows([{ name: 'u', kind: 'udp', startS: 0, stopS: 1 }], { runId: 'r' }), /"u": a udp flow needs rateKbps > 0/);
  assert.throws(() => planKernelFlows([{ name: 's', kind: 'tcp-short', startS: 0, stopS: 1 }], { runId: 'r' }), /"s": a tcp-short flow needs bursts/);
  assert.throws(() => planKernelFlows([{ name: 'c', kind: /** @type {any} */ ('call'), startS: 0, stopS: 1 }], { runId: 'r' }), /"c": kind "call" is not tcp/);
});
