import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browserFlowTimeline, mainCallHolds } from '../../orchestrator/lib/cross/flow-commands.js';
import { validateCommand } from '../../signaling/messages.js';

const call = (fields) => ({ kind: 'call', direction: 'both', pauses: [], ...fields });
/** One line per command: easy to compare by eye with the scenario. */
const lines = (timeline) => timeline.map(({ atS, peer, command: { type, ...rest } }) => `${atS} ${peer} ${type} ${Object.values(rest).join(' ')}`);

test('an extra two-way call: the answerer hears first, the left (even) peer offers; both hang up at stopS', () => {
  const timeline = browserFlowTimeline({ peers: 2, durationS: 60, flows: [call({ name: 'call-2', startS: 10, stopS: 25 })] });
  assert.deepEqual(lines(timeline), [
    '10 p3 call p2 both answerer',
    '10 p2 call p3 both offerer',
    '25 p2 hang-up p3',
    '25 p3 hang-up p2',
  ]);
});

test('call flows take peers two by two from p(N) in file order; kernel flows give no commands', () => {
  const flows = [
    call({ name: 'a', startS: 5, stopS: 50 }),
    { name: 'tcp', kind: 'tcp', startS: 0, stopS: 60, direction: 'forward' },
    call({ name: 'b', startS: 20, stopS: 30, direction: 'forward' }),
  ];
  assert.deepEqual(lines(browserFlowTimeline({ peers: 4, durationS: 60, flows })), [
    '5 p5 call p4 both answerer',
    '5 p4 call p5 both offerer',
    '20 p7 call p6 forward answerer',
    '20 p6 call p7 forward offerer',
    '30 p6 hang-up p7',
    '30 p7 hang-up p6',
    '50 p4 hang-up p5',
    '50 p5 hang-up p4',
  ]);
});

test('with an odd main call the pair\'s even peer (the left one) still sends a forward call', () => {
  const timeline = browserFlowTimeline({ peers: 3, durationS: 60, flows: [call({ name: 'm', startS: 0, stopS: 40, direction: 'forward' })] });
  assert.deepEqual(lines(timeline), ['0 p3 call p4 forward answerer', '0 p4 call p3 forward offerer', '40 p4 hang-up p3', '40 p3 hang-up p4']);
});

test('pauses stop the sending side(s) and resume them, except a pause that lasts to the hang-up', () => {
  const flows = [
    call({ name: 'fwd', startS: 0, stopS: 60, direction: 'forward', pauses: [{ atS: 10, durationS: 5 }, { atS: 40, durationS: 20 }] }),
    call({ name: 'two', startS: 10, stopS: 50, pauses: [{ atS: 20, durationS: 10 }] }),
  ];
  assert.deepEqual(lines(browserFlowTimeline({ peers: 2, durationS: 100, flows })), [
    '0 p3 call p2 forward answerer',
    '0 p2 call p3 forward offerer',
    '10 p2 pause p3',
    '10 p5 call p4 both answerer',
    '10 p4 call p5 both offerer',
    '15 p2 resume p3',
    '20 p4 pause p5',
    '20 p5 pause p4',
    '30 p4 resume p5',
    '30 p5 resume p4',
    '40 p2 pause p3',
    '50 p4 hang-up p5',
    '50 p5 hang-up p4',
    '60 p2 hang-up p3',
    '60 p3 hang-up p2',
  ]);
});

test('a data flow: its sender opens the channel at startS and stops at stopS; default p0 -> p1', () => {
  /** @type {import('../../orchestrator/lib/cross/flows.js').Flow[]} */
  const flows = [
    { name: 'bulk', kind: 'data', startS: 5, stopS: 20, from: 'p1', to: 'p0' },
    { name: 'plain', kind: 'data', startS: 0, stopS: 8 },
  ];
  assert.deepEqual(lines(browserFlowTimeline({ peers: 2, durationS: 30, flows })), [
    '0 p0 data-start p1 plain',
    '5 p1 data-start p0 bulk',
    '8 p0 data-stop p1 plain',
    '20 p1 data-stop p0 bulk',
  ]);
});

test('commands at or after the run\'s end are left out (a --duration shorter than the flows included)', () => {
  const flows = [call({ name: 'late', startS: 10, stopS: 30 }), { name: 'd', kind: 'data', startS: 25, stopS: 30 }];
  assert.deepEqual(lines(browserFlowTimeline({ peers: 2, durationS: 20, flows })), ['10 p3 call p2 both answerer', '10 p2 call p3 both offerer']);
  assert.deepEqual(browserFlowTimeline({ peers: 2, durationS: 20 }), []);
});

test('every command is one the signaling server sends (messages.js validateCommand)', () => {
  const flows = [
    call({ name: 'c', startS: 1, stopS: 9, direction: 'forward', pauses: [{ atS: 2, durationS: 1 }] }),
    { name: 'd', kind: 'data', startS: 1, stopS: 9, from: 'p0', to: 'p1' },
  ];
  const timeline = browserFlowTimeline({ peers: 2, durationS: 10, flows });
  assert.equal(timeline.length, 8);
  for (const { peer, command } of timeline) {
    const checked = validateCommand(command, peer);
    assert.ok(checked.ok, `${peer} ${JSON.stringify(command)}: ${'reason' in checked ? checked.reason : ''}`);
  }
});

test('the main call: held until mainCall.startS in both directions, then resumed; a forward call holds p1 -> p0 for good', () => {
  assert.deepEqual(mainCallHolds({ peers: 2 }), []);
  assert.deepEqual(mainCallHolds({ peers: 2, mainCall: { startS: 5, direction: 'both' } }), [
    { peer: 'p0', remote: 'p1', resumeAtS: 5 }, { peer: 'p1', remote: 'p0', resumeAtS: 5 },
  ]);
  const forward = { peers: 2, durationS: 100, flows: [], mainCall: { startS: 5, direction: /** @type {const} */ ('forward') } };
  assert.deepEqual(mainCallHolds(forward), [{ peer: 'p0', remote: 'p1', resumeAtS: 5 }, { peer: 'p1', remote: 'p0', resumeAtS: null }]);
  assert.deepEqual(browserFlowTimeline(forward), [{ atS: 5, peer: 'p0', command: { type: 'resume', remote: 'p1' } }]);
  assert.deepEqual(browserFlowTimeline({ ...forward, mainCall: { startS: 0, direction: 'forward' } }), []);
});
