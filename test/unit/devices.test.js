// Constrained devices: the scenario's `devices` validated per peer, and the getUserMedia constraints a device means.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cgroupLimits, normalizeDevices, videoConstraints } from '../../orchestrator/lib/devices/devices.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';

const UNLIMITED = { width: null, height: null, fps: null, cpuThrottlingRate: 1, cpuQuotaCores: null, cpuCount: null };

test('a device gives a capture size, a frame rate, a CPU throttling rate and a CPU quota; what it leaves out stays the capture\'s', () => {
  assert.deepEqual(normalizeDevices(undefined, 2, 'f'), {});
  assert.deepEqual(normalizeDevices({ p1: { width: 640, height: 480, fps: 30, cpuThrottlingRate: 4, cpuQuotaCores: 0.25, cpuCount: 1 } }, 2, 'f'),
    { p1: { width: 640, height: 480, fps: 30, cpuThrottlingRate: 4, cpuQuotaCores: 0.25, cpuCount: 1 } });
  assert.deepEqual(normalizeDevices({ p0: { cpuThrottlingRate: 6 } }, 2, 'f'), { p0: { ...UNLIMITED, cpuThrottlingRate: 6 } });
  assert.deepEqual(normalizeDevices({ p0: { cpuQuotaCores: 1.5 } }, 2, 'f'), { p0: { ...UNLIMITED, cpuQuotaCores: 1.5 } });
  const { p1 } = loadScenario('constrained-device').devices;
  assert.deepEqual([p1.width, p1.height, p1.fps], [640, 480, 30]);
  assert.ok(p1.cpuQuotaCores > 0 && p1.cpuQuotaCores < 1, 'the throttled peer gets less than a core');
});

test('the peers with a CPU quota or core count get a cgroup; the others none', () => {
  assert.deepEqual(cgroupLimits(normalizeDevices({ p0: { cpuThrottlingRate: 4 }, p1: { cpuCount: 1 }, p2: { cpuQuotaCores: 0.3 } }, 3, 'f')),
    { p1: { cpuQuotaCores: null, cpuCount: 1 }, p2: { cpuQuotaCores: 0.3, cpuCount: null } });
  assert.deepEqual(cgroupLimits(undefined), {});
});

test('bad devices are refused with the file, peer and field', () => {
  const refused = (raw, pattern) => assert.throws(() => normalizeDevices(raw, 2, 'f.json'), pattern);
  refused({ p2: {} }, /^InputError: f\.json: devices: unknown field 'p2'; allowed: p0, p1/);
  refused({ p1: { width: 640 } }, /^InputError: f\.json: devices\.p1: give width and height together/);
  refused({ p1: { width: 640.5, height: 480 } }, /^InputError: f\.json: devices\.p1\.width: must be an integer from 16 to 3840/);
  refused({ p1: { fps: 0 } }, /devices\.p1\.fps: must be a number from 1 to 60/);
  refused({ p1: { cpuThrottlingRate: 0.5 } }, /devices\.p1\.cpuThrottlingRate: must be a number from 1 to 20/);
  refused({ p1: { cpuQuotaCores: 0.05 } }, /devices\.p1\.cpuQuotaCores: must be a number from 0\.1 to 64, got 0\.05/);
  refused({ p1: { cpuQuotaCores: '25%' } }, /devices\.p1\.cpuQuotaCores: must be a number/);
  refused({ p1: { cpuCount: 1.5 } }, /devices\.p1\.cpuCount: must be an integer from 1 to 1024/);
  refused({ p1: { cores: 1 } }, /devices\.p1: unknown field 'cores'; allowed: width, height, fps, cpuThrottlingRate, cpuQuotaCores, cpuCount/);
});

test('getUserMedia constraints: at most the size and frame rate; the capture as it is otherwise', () => {
  assert.deepEqual(videoConstraints({ ...UNLIMITED, width: 640, height: 480, fps: 30, cpuThrottlingRate: 4 }),
    { width: { ideal: 640, max: 640 }, height: { ideal: 480, max: 480 }, frameRate: { ideal: 30, max: 30 } });
  assert.deepEqual(videoConstraints({ ...UNLIMITED, fps: 15 }), { frameRate: { ideal: 15, max: 15 } });
  assert.equal(videoConstraints({ ...UNLIMITED, cpuThrottlingRate: 4, cpuQuotaCores: 0.25 }), true);
  assert.equal(videoConstraints(undefined), true);
});
