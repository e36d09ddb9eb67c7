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

/**
 * A property of a thrown value (catch variables are `unknown`): `error.<key>` when it is an object, else undefined.
 * @param {unknown} error @param {string} key @returns {unknown}
 */
export function errorProperty(error, key) {
  const isObject = error !== null && (typeof error === 'object' || typeof error === 'function');
  return isObject ? /** @type {Record<string, unknown>} */ (error)[key] : undefined;
}

/**
 * What `error.message` gave: the message of an Error (or of an object with one), else the thrown value as text.
 * @param {unknown} error @returns {string}
 */
export function errorMessage(error) {
  const message = errorProperty(error, 'message');
  return message === undefined ? String(error) : String(message);
}

/** A Node error's code (ENOENT, EEXIST, …; an exit status as text), or undefined. @param {unknown} error @returns {string | undefined} */
export function errorCode(error) {
  const code = errorProperty(error, 'code');
  return typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
}

/** What `${error?.stack ?? error}` gave: the stack of an Error, else the thrown value as text. @param {unknown} error @returns {string} */
export function errorStack(error) {
  return String(errorProperty(error, 'stack') ?? error);
}
