/**
 * Shell-script text the kernel emulators run or write out (export-script): one quoting rule for every value,
 * comments that cannot end early, and the skeleton of a schedule script (set-up, timed changes with sleeps,
 * teardown via trap; J16 listings 7.3/7.4). Pure.
 */
/** @typedef {import('../lib/network/schedule.js').CompiledNetwork['events'][number]} ScheduleEvent */
/** @typedef {{atS: number, events: ScheduleEvent[], lines: string[]}} ScriptStep  lines apply one group of events */

/** Words the shell reads as themselves; anything else is single-quoted. */
const SAFE_WORD = /^[A-Za-z0-9_\-.,:/@%+=]+$/;

/**
 * Quotes one argument for a POSIX shell: the shell passes it on as exactly one word, unchanged.
 * @param {string} arg
 */
export function shellQuote(arg) {
  return SAFE_WORD.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/** @param {string[]} argv */
export function shellJoin(argv) {
  return argv.map(shellQuote).join(' ');
}

/**
 * A comment line. A line break would end the comment and start a command, so control characters in text are
 * written as \xNN escapes.
 * @param {string} text
 */
export function shellComment(text) {
  return `# ${text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}`;
}

/** Millisecond resolution; schedule times stay far below 1e21, so never an exponent `sleep` would reject. @param {number} seconds */
const formatSeconds = (seconds) => String(Number(seconds.toFixed(3)));

/**
 * @param {string} title
 * @param {string[]} notes
 */
const header = (title, notes) => ['#!/bin/sh', shellComment(title), ...notes.map(shellComment)];

/**
 * A script that runs a whole schedule: tears down leftovers, sets up, applies each step after a sleep,
 * sleeps to the end, and tears down on exit or Ctrl-C.
 * @param {{title: string, notes: string[], setup: string[], steps: ScriptStep[], durationS: number, teardown: string[]}} script
 *   setup, teardown and each step's lines are shell lines whose values were quoted with shellQuote
 * @returns {string}
 */
export function renderScheduleScript({ title, notes, setup, steps, durationS, teardown }) {
  const out = [
    ...header(title, notes),
    '# Run as root. Ctrl-C (or any failing command) tears everything down.',
    '# Sleeps are relative, so the time the commands take accumulates as drift over long schedules.',
    'set -u',
    '',
    'teardown() {',
    '  trap - EXIT INT TERM',
    ...teardown.map((line) => `  ${line} 2>/dev/null || true`),
    '}',
    '',
    '# Leftovers of an earlier run of this script would make set-up fail.',
    'teardown',
    'trap teardown EXIT',
    "trap 'exit 130' INT TERM",
    'set -e',
    '',
    ...setup,
    '',
    shellJoin(['echo', `network ready: t=0, schedule runs ${formatSeconds(durationS)} s`]),
  ];
  let nowS = 0;
  for (const step of steps) {
    const causes = [...new Set(step.events.map((event) => `${shellQuote(event.link)} ← ${event.cause}`))];
    out.push('', shellComment(`t=${formatSeconds(step.atS)} s: ${causes.join('; ')}`));
    if (step.atS > nowS) out.push(shellJoin(['sleep', formatSeconds(step.atS - nowS)]));
    out.push(...step.lines);
    nowS = step.atS;
  }
  out.push('', '# until the end of the scenario');
  if (durationS > nowS) out.push(shellJoin(['sleep', formatSeconds(durationS - nowS)]));
  out.push('');
  return out.join('\n');
}

/**
 * A script that only builds something and leaves it standing (stops at the first failing command).
 * @param {{title: string, notes: string[], setup: string[], done: string}} script
 *   setup: shell lines whose values were quoted with shellQuote; done: printed at the end
 * @returns {string}
 */
export function renderSetupScript({ title, notes, setup, done }) {
  return [...header(title, notes), 'set -eu', '', ...setup, '', shellJoin(['echo', done]), ''].join('\n');
}
