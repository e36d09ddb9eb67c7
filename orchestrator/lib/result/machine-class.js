// The machine class of a run or suite (pure): what makes two machines' numbers comparable (docs/suites.md "Machine
// class"). Baselines record it and are compared only within one; the results store keeps it with every night and run.

/**
 * @typedef {{ os: string|null, cpu: string|null, cores: number|null, browser: string|null, emulator: string|null }} MachineClass
 *   what makes two machines' numbers comparable (docs/suites.md "Machine class"): OS family with kernel
 *   major.minor and architecture, CPU model, core count, browser name and major version, network emulator
 */

/** @type {Array<keyof MachineClass>} */
export const MACHINE_CLASS_FIELDS = ['os', 'cpu', 'cores', 'browser', 'emulator'];

/**
 * The machine class of a run or suite environment: result.json's `environment` (browser as { name, version })
 * or summary.json's (browser as "chromium 156.0.8078.79").
 * @param {{ os?: string|null, cpus?: number|null, cpuModel?: string|null, emulator?: string|null,
 *   browser?: string|{ name?: string|null, version?: string|null }|null }} environment
 * @returns {MachineClass}
 */
export function machineClass(environment) {
  // "linux 6.8.0-1017-azure x64" -> "linux 6.8 x64": patch releases of one kernel line behave alike.
  const [platform, release, ...rest] = String(environment.os ?? '').trim().split(/\s+/);
  const kernel = release?.match(/^\d+\.\d+/)?.[0] ?? release;
  const browser = typeof environment.browser === 'string' ? environment.browser
    : [environment.browser?.name, environment.browser?.version].filter(Boolean).join(' ');
  const [browserName, browserVersion] = (browser ?? '').trim().split(/\s+/);
  return {
    os: [platform, kernel, ...rest].filter(Boolean).join(' ') || null,
    cpu: environment.cpuModel?.replace(/\s+/g, ' ').trim() || null,
    cores: environment.cpus ?? null,
    browser: browserName ? [browserName, browserVersion?.split('.')[0]].filter(Boolean).join(' ') : null,
    emulator: environment.emulator ?? null,
  };
}

/** @param {MachineClass|null|undefined} machine */
export function describeMachineClass(machine) {
  if (!machine) return 'unknown (not recorded)';
  return `${machine.os ?? '?'}, ${machine.cpu ?? '?'} × ${machine.cores ?? '?'}, ${machine.browser ?? '?'}, ${machine.emulator ?? '?'}`;
}

/** @param {MachineClass|null|undefined} a @param {MachineClass|null|undefined} b */
export function sameMachineClass(a, b) {
  return Boolean(a && b) && MACHINE_CLASS_FIELDS.every((field) => a?.[field] === b?.[field]);
}
