// Constrained devices (pure): a scenario's per-peer capture size and frame rate (getUserMedia constraints in the page),
// CPU throttling (the DevTools protocol's Emulation.setCPUThrottlingRate on the peer's page) and a CPU budget for the
// peer's whole browser (a cgroup: a quota of cores' time, a number of cores; lib/devices/cpu-cgroup.js), so one peer of a call can
// stand for J16's mobile phones (640×480 at 30 fps, a slower CPU). Format: docs/scenario-format.md "Devices".
import { InputError } from '../system/errors.js';
import { expectNumber, expectObject } from '../input/validate.js';

export const DEVICE_FIELDS = ['width', 'height', 'fps', 'cpuThrottlingRate', 'cpuQuotaCores', 'cpuCount'];
/** A quota beyond 64 cores' time limits nothing on any machine this runs on. */
export const MAX_CPU_QUOTA_CORES = 64;
/** Chrome DevTools offers 4× (mid-tier mobile) and 6× (low-end mobile); beyond 20× a page barely runs its own timers. */
export const MAX_CPU_THROTTLING_RATE = 20;

/**
 * @typedef {{ width: number|null, height: number|null, fps: number|null, cpuThrottlingRate: number,
 *   cpuQuotaCores: number|null, cpuCount: number|null }} Device
 *   null: the capture's own value, or no limit; cpuThrottlingRate 1: no throttling; cpuQuotaCores: the CPU time the
 *   page's processes may use, in cores (0.25: 2.5 ms per 10 ms); cpuCount: how many cores it may run on
 */

/**
 * A scenario's `devices`: peer name → { width?, height?, fps?, cpuThrottlingRate? }; width and height go together.
 * @param {unknown} raw @param {number} peers every browser of the run @param {string} file
 * @returns {Record<string, Device>}
 */
export function normalizeDevices(raw, peers, file) {
  if (raw === undefined) return {};
  const names = Array.from({ length: peers }, (_, i) => `p${i}`);
  const devices = expectObject(raw, `${file}: devices`, names, { what: 'an object of peer names to devices, e.g. {"p1": {"width": 640, "height": 480, "fps": 30, "cpuQuotaCores": 0.25}}' });
  return Object.fromEntries(Object.entries(devices).map(([peer, value]) => {
    const where = `${file}: devices.${peer}`;
    const device = expectObject(value, where, DEVICE_FIELDS);
    if ((device.width === undefined) !== (device.height === undefined)) throw new InputError(`${where}: give width and height together (the capture size), or neither`);
    const size = (/** @type {'width'|'height'} */ field) => (device[field] === undefined ? null : expectNumber(device[field], `${where}.${field}`, { min: 16, max: 3840, integer: true }));
    return [peer, {
      width: size('width'),
      height: size('height'),
      fps: device.fps === undefined ? null : expectNumber(device.fps, `${where}.fps`, { min: 1, max: 60 }),
      cpuThrottlingRate: device.cpuThrottlingRate === undefined ? 1 : expectNumber(device.cpuThrottlingRate, `${where}.cpuThrottlingRate`, { min: 1, max: MAX_CPU_THROTTLING_RATE }),
      // 0.1 core: the kernel's smallest CFS quota, 1 ms per (lib/devices/cpu-cgroup.js) 10 ms period.
      cpuQuotaCores: device.cpuQuotaCores === undefined ? null : expectNumber(device.cpuQuotaCores, `${where}.cpuQuotaCores`, { min: 0.1, max: MAX_CPU_QUOTA_CORES }),
      cpuCount: device.cpuCount === undefined ? null : expectNumber(device.cpuCount, `${where}.cpuCount`, { min: 1, max: 1024, integer: true }),
    }];
  }));
}

/**
 * The page's getUserMedia video constraints for a device: at most its capture size and frame rate, as a phone's OS caps
 * its camera (Chromium scales and crops a larger fake capture to it; a smaller one stays as it is: nothing is upscaled);
 * `true` (the capture as it is) without one.
 * @param {Device|undefined} device @returns {MediaTrackConstraints|true}
 */
export function videoConstraints(device) {
  if (!device || (device.width === null && device.fps === null)) return true;
  return {
    ...(device.width === null || device.height === null ? {} : {
      width: { ideal: device.width, max: device.width }, height: { ideal: device.height, max: device.height },
    }),
    ...(device.fps === null ? {} : { frameRate: { ideal: device.fps, max: device.fps } }),
  };
}

/**
 * The peers whose browser gets a cgroup, with their limits.
 * @param {Record<string, Device>|undefined} devices @returns {Record<string, { cpuQuotaCores: number|null, cpuCount: number|null }>}
 */
export function cgroupLimits(devices) {
  return Object.fromEntries(Object.entries(devices ?? {})
    .filter(([, device]) => device.cpuQuotaCores !== null || device.cpuCount !== null)
    .map(([peer, { cpuQuotaCores, cpuCount }]) => [peer, { cpuQuotaCores, cpuCount }]));
}

/**
 * The peers a scenario's `devices` hold to a slowed, quota'd or smaller CPU: CPU-limited by design (a constrained
 * device is the experiment, not the host). Reads a result's devices back, so any field may be missing.
 * @param {Record<string, { cpuThrottlingRate?: number|null, cpuQuotaCores?: number|null, cpuCount?: number|null }>|null|undefined} devices
 * @returns {Set<string>}
 */
export function constrainedPeers(devices) {
  return new Set(Object.entries(devices ?? {})
    .filter(([, d]) => (d?.cpuThrottlingRate ?? 1) > 1 || d?.cpuQuotaCores != null || d?.cpuCount != null).map(([peer]) => peer));
}
