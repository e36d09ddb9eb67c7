/**
 * Errors the CLI maps to exit codes (documented in README "Exit codes").
 * Every message names the file, field or flag at fault and says what to do next.
 */
export class HarnessError extends Error {
  /** @param {string} message @param {{exitCode?: number, cause?: unknown}} [options] */
  constructor(message, options = {}) {
    super(message, { cause: options.cause });
    this.name = this.constructor.name;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Bad input: a scenario, suite, assertion or baseline file, or a flag. Exit code 2. */
export class InputError extends HarnessError {
  /** @param {string} message @param {{cause?: unknown}} [options] */
  constructor(message, options = {}) { super(message, { ...options, exitCode: 2 }); }
}

/** The environment cannot run it: no browser, emulator unavailable, missing kernel module. Exit code 3. */
export class EnvironmentError extends HarnessError {
  /** @param {string} message @param {{cause?: unknown}} [options] */
  constructor(message, options = {}) { super(message, { ...options, exitCode: 3 }); }
}
