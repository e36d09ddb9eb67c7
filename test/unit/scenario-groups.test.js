import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { listScenarios, loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { commonDescription, groupsOf, resolveScenarioOrGroup, shippedScenarios } from '../../orchestrator/lib/scenario/scenario-groups.js';

const scenario = (name, group = null, description = `about ${name}`) => ({ name, group, description, file: `scenarios/${name}.json` });

test('the shipped queue-size group is every queue-size-* file, each of which names it', () => {
  const queueFiles = listScenarios().map((s) => s.name).filter((name) => name.startsWith('queue-size-'));
  assert.equal(queueFiles.length, 6);
  const { group, names } = resolveScenarioOrGroup('queue-size');
  assert.equal(group?.name, 'queue-size');
  assert.deepEqual([...names].sort(), [...queueFiles].sort());
  for (const name of names) assert.equal(loadScenario(name).group, 'queue-size', name);
  assert.match(group.description, /drop-tail queue each direction \(F §4\.3\)$/);
});

test('a scenario name or a file path stands for itself', () => {
  assert.deepEqual(resolveScenarioOrGroup('loss-5'), { group: null, names: ['loss-5'] });
  assert.deepEqual(resolveScenarioOrGroup('./my-scenario.json'), { group: null, names: ['./my-scenario.json'] });
  assert.deepEqual(resolveScenarioOrGroup('a', [scenario('a'), scenario('b', 'g')]), { group: null, names: ['a'] });
});

test('groups collect their members in list order, sorted by group name', () => {
  const groups = groupsOf([scenario('z-1', 'zeta'), scenario('a-2', 'alpha'), scenario('plain'), scenario('a-1', 'alpha')]);
  assert.deepEqual(groups.map((g) => [g.name, g.members]), [['alpha', ['a-2', 'a-1']], ['zeta', ['z-1']]]);
});

test('a group with a scenario\'s name is an error naming the file and both', () => {
  const clash = [scenario('loss-5'), scenario('loss-5-burst', 'loss-5')];
  assert.throws(() => groupsOf(clash), (error) => error instanceof InputError
    && /scenarios\/loss-5-burst\.json: group: 'loss-5' is also a scenario's name/.test(error.message));
  assert.throws(() => resolveScenarioOrGroup('loss-5', clash), InputError);
});

test('an unknown name lists the scenarios and the groups', () => {
  assert.throws(() => resolveScenarioOrGroup('latency-5000'), (error) => error instanceof InputError
    && /unknown scenario 'latency-5000'; known: .*latency-500.*; groups: .*queue-size/.test(error.message));
  assert.throws(() => resolveScenarioOrGroup('x', [scenario('a')]), /groups: none/);
});

test('a group\'s description keeps what its members\' descriptions share', () => {
  assert.equal(commonDescription(['Cap 1000 kbps, 1 s queue (F)', 'Cap 5000 kbps, 100 ms queue (F)']), 'Cap … kbps, … queue (F)');
  assert.equal(commonDescription(['same words', 'same words']), 'same words');
  assert.equal(commonDescription(['a b c', 'a x y c']), 'a … c', 'different lengths: shared start and end');
  assert.equal(commonDescription(['p q', 'r s']), '', 'nothing shared: the caller names the count alone');
});

test('every shipped scenario is listed with the group its file names', () => {
  const shipped = shippedScenarios();
  assert.deepEqual(shipped.map((s) => s.name), listScenarios().map((s) => s.name));
  for (const s of shipped) assert.equal(s.group, loadScenario(s.name).group, s.name);
});
