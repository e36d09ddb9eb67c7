// Constrained devices: the scenario's `devices` validated per peer, and the getUserMedia constraints a device means.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeDevices, videoConstraints } from '../../orchestrator/lib/devices.js';
import { loadScenario } from '../../orchestrator/lib/scenario.js';

test('a device gives a capture size, a frame rate and a CPU throttling rate; what it leaves out stays the capture\'s', () => {
  assert.deepEqual(normalizeDevices(undefined, 2, 'f'), {});
  assert.deepEqual(normalizeDevices({ p1: { width: 640, height: 480, fps: 30, cpuThrottlingRate: 4 } }, 2, 'f'),
    { p1: { width: 640, height: 480, fps: 30, cpuThrottlingRate: 4 } });
  assert.deepEqual(normalizeDevices({ p0: { cpuThrottlingRate: 6 } }, 2, 'f'), { p0: { width: null, height: null, fps: null, cpuThrottlingRate: 6 } });
  assert.deepEqual(loadScenario('constrained-device').devices, { p1: { width: 640, height: 480, fps: 30, cpuThrottlingRate: 4 } });
});

test('bad devices are refused with the file, peer and field', () => {
  const refused = (raw, pattern) => assert.throws(() => normalizeDevices(raw, 2, 'f.json'), pattern);
  refused({ p2: {} }, /^InputError: f\.json: devices: unknown field 'p2'; allowed: p0, p1/);
  refused({ p1: { width: 640 } }, /^InputError: f\.json: devices\.p1: give width and height together/);
  refused({ p1: { width: 640.5, height: 480 } }, /^InputError: f\.json: devices\.p1\.width: must be an integer from 16 to 3840/);
  refused({ p1: { fps: 0 } }, /devices\.p1\.fps: must be a number from 1 to 60/);
  refused({ p1: { cpuThrottlingRate: 0.5 } }, /devices\.p1\.cpuThrottlingRate: must be a number from 1 to 20/);
  refused({ p1: { cores: 1 } }, /devices\.p1: unknown field 'cores'; allowed: width, height, fps, cpuThrottlingRate/);
});

test('getUserMedia constraints: at most the size and frame rate; the capture as it is otherwise', () => {
  assert.deepEqual(videoConstraints({ width: 640, height: 480, fps: 30, cpuThrottlingRate: 4 }),
    { width: { ideal: 640, max: 640 }, height: { ideal: 480, max: 480 }, frameRate: { ideal: 30, max: 30 } });
  assert.deepEqual(videoConstraints({ width: null, height: null, fps: 15, cpuThrottlingRate: 1 }), { frameRate: { ideal: 15, max: 15 } });
  assert.equal(videoConstraints({ width: null, height: null, fps: null, cpuThrottlingRate: 4 }), true);
  assert.equal(videoConstraints(undefined), true);
});
