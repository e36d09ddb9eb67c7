// The load participants of an SFU room (issue 41): one process each of the Go program in ./load-peer (Pion, and
// LiveKit's Go SDK), built by `npm run setup`, publishing the run's media as pre-encoded VP8 simulcast and Opus. Each
// runs as the SFUs do (./owned-process.js: death signal, own process group, closer registered before it starts) and
// speaks JSON lines: every line it writes is checked (lib/media/load-participants.js parseLoadLine), bounded in size
// and count, before anything reads it. How it joins is the room's (addLoadParticipant: its descriptions through the
// harness, or the SFU's own protocol with a token sent on its stdin); its counters become result.json `load`.
import { constants, existsSync, openSync, closeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { EnvironmentError, HarnessError } from '../lib/system/errors.js';
import { loadPeerPath } from '../lib/system/paths.js';
import { MAX_LOAD_LINE_CHARS, MAX_LOAD_LINES_PER_S } from '../lib/input/limits.js';
import { parseLoadLine } from '../lib/media/load-participants.js';
import { ownedArgv, spawnOwned } from './owned-process.js';

const STOP_TIMEOUT_MS = 2_000;
/** A participant whose counters stop for this long is reported (a warning): it no longer answers. */
const SILENT_AFTER_MS = 5_000;
/** Lines a participant may write before its per-second allowance starts to count (its start: a description, states). */
const START_LINES = 100;

/**
 * @typedef {import('../lib/media/load-participants.js').LoadRequest} LoadRequest
 * @typedef {import('../lib/media/load-participants.js').LoadReading} LoadReading
 * @typedef {import('./contract.js').SfuRoom} SfuRoom
 */

/**
 * Splits a stream into lines, refusing one longer than the bound before it is all buffered (then reads no more).
 * @param {import('node:stream').Readable} stream @param {(line: string) => void} onLine @param {(reason: string) => void} onRefused
 */
export function boundedLines(stream, onLine, onRefused) {
  let pending = '';
  let refused = false;
  stream.setEncoding('utf8');
  const refuse = () => {
    refused = true;
    pending = '';
    onRefused(`a line over ${MAX_LOAD_LINE_CHARS} characters`);
  };
  stream.on('data', (/** @type {string} */ chunk) => {
    if (refused) return;
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.length > MAX_LOAD_LINE_CHARS) return refuse();
      onLine(line);
    }
    if (pending.length > MAX_LOAD_LINE_CHARS) refuse();
    return undefined;
  });
}

/**
 * Warns once when a participant's counters stop for SILENT_AFTER_MS: it no longer answers. Returns the timer to clear.
 * @param {() => number} lastCountsMs @param {() => void} warn
 */
function watchSilence(lastCountsMs, warn) {
  let warned = false;
  return setInterval(() => {
    if (!warned && Date.now() - lastCountsMs() > SILENT_AFTER_MS) {
      warned = true;
      warn();
    }
  }, 1000);
}

/**
 * Starts every load participant of the room and wires it to the SFU. The binary must exist (`npm run setup`); the
 * files it sends are made once from the run's media (media/generate.js ensureLoadMedia).
 * @param {object} options
 * @param {LoadRequest} options.request
 * @param {SfuRoom} options.room
 * @param {string} options.mediaDir  f.ivf, h.ivf, q.ivf and audio.ogg
 * @param {string} options.runDir  each participant's stderr goes to <runDir>/load/<name>.log
 * @param {import('./owned-process.js').RegisterCleanup} options.registerCleanup
 * @param {(error: Error) => void} options.onError  a participant that failed, exited or wrote what it must not: the run fails
 * @param {(message: string) => void} options.onWarning  a participant that stopped counting
 * @param {(name: string, pid: number) => void} [options.track]  its process, sampled like the browsers'
 * @param {(name: string) => string|undefined} [options.netnsOf]  the network namespace it runs in (the emulator's hostOf);
 *   undefined: this host's
 * @param {(line: string) => void} [options.log]
 */
export async function startLoadParticipants({
  request, room, mediaDir, runDir, registerCleanup, onError, onWarning, track = () => {}, netnsOf = () => undefined, log = () => {},
}) {
  const { addLoadParticipant } = room;
  if (!addLoadParticipant) throw new HarnessError('this SFU room takes no load participants (capabilities.loadParticipants): the scenario should have been refused');
  const binary = loadPeerPath();
  if (!existsSync(binary)) throw new EnvironmentError(`load participants: no load-peer binary at ${binary}; run \`npm run setup\` (it builds orchestrator/sfu/load-peer with Go ≥ 1.26 from the Go module proxy)`);
  const logDir = path.join(runDir, 'load');
  await mkdir(logDir, { recursive: true, mode: 0o700 });
  /** @type {LoadReading[]} */
  const readings = [];
  /** @type {string[][]} */
  const commands = [];
  let stopping = false;
  /** @type {Array<() => void>} */
  const watchdogs = [];

  for (const name of request.names) {
    /** @type {import('node:stream').Writable|null} */
    let input = null;
    const join = addLoadParticipant(name, (message) => input?.write(`${JSON.stringify(message)}\n`));
    const what = `load participant ${name}`;
    const argv = ownedArgv([binary, '-join', join.protocol, '-media', mediaDir], { netns: netnsOf(name), searchPath: process.env.PATH ?? '', what });
    commands.push(argv);
    const consoleFile = path.join(logDir, `${name}.log`);
    closeSync(openSync(consoleFile, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
    const child = spawnOwned({ name: what, argv, consoleFile, registerCleanup, stopTimeoutMs: STOP_TIMEOUT_MS, pipes: true });
    if (!child.stdin || !child.stdout || child.pid === undefined) throw new HarnessError(`${what}: ${child.exitReason() ?? 'no process'}`);
    track(name, child.pid);
    const { stdin } = child;
    input = stdin;
    // A participant that died mid-write is reported by its exit, not by an unhandled pipe error.
    stdin.on('error', () => {});
    if (join.protocol !== 'descriptions') {
      stdin.write(`${JSON.stringify({ type: 'join', url: join.url, token: join.token, subscribe: join.subscribe, speaker: join.speaker })}\n`);
    }
    const fail = (/** @type {string} */ reason) => {
      if (stopping) return;
      stopping = true;
      onError(new HarnessError(`load participant ${name}: ${reason}`));
    };
    const startedMs = Date.now();
    let lines = 0;
    let lastCountsMs = Date.now();
    boundedLines(child.stdout, (text) => {
      lines += 1;
      if (lines > START_LINES + MAX_LOAD_LINES_PER_S * (Date.now() - startedMs) / 1000) return fail(`over ${MAX_LOAD_LINES_PER_S} lines a second`);
      const parsed = parseLoadLine(text);
      if ('reason' in parsed) return fail(`wrote ${parsed.reason}`);
      const { line } = parsed;
      if (line.type === 'counts') {
        lastCountsMs = Date.now();
        readings.push({ epochMs: lastCountsMs, participant: name, counts: line.counts });
      } else if (line.type === 'state') {
        log(`${name} ${line.pc}: ${line.state}`);
        if (line.state === 'failed') fail(`its connection ${line.pc} failed`);
      } else if (line.type === 'error') {
        fail(line.error);
      } else if (join.protocol === 'descriptions') {
        join.take(line).catch((/** @type {Error} */ error) => fail(error.message));
      } else {
        fail(`wrote a description, but it joins by ${join.protocol}`);
      }
    }, fail);
    child.exited.then(() => fail(child.exitReason() ?? 'exited'));
    const timer = watchSilence(() => lastCountsMs, () => onWarning(`${what} wrote no counters for ${SILENT_AFTER_MS / 1000} s: it no longer answers`));
    watchdogs.push(() => clearInterval(timer));
    registerCleanup(`load participant ${name}'s watchdog`, async () => {
      stopping = true;
      clearInterval(timer);
      stdin.end();
    });
  }
  log(`load participants: ${request.names.join(', ')} (subscribe ${request.subscribe}${request.speaker ? ` to ${request.speaker}` : ''}), media from ${mediaDir}`);
  return {
    readings,
    commands,
    /** Stops counting before the processes are stopped, so their exits are no failure. */
    stop() {
      stopping = true;
      for (const clear of watchdogs) clear();
    },
  };
}
