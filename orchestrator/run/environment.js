// The `environment` section of result.json: what ran the measurement, so a figure can be traced to its host.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { missingTimelineFields } from '../lib/scenario/peer-browsers.js';
import { REPO_ROOT } from '../lib/system/paths.js';
import { harnessCommit, harnessTreeDirty } from '../lib/system/harness-commit.js';

const HARNESS_VERSION = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version;

/**
 * The browser's name as the environment records it: its kind, told apart by the executable's name where that says
 * more (Chrome or Chromium, Firefox ESR).
 * @param {string} kind @param {string} executable
 */
function browserName(kind, executable) {
  if (kind === 'firefox') return /esr/i.test(path.basename(executable)) ? 'firefox-esr' : 'firefox';
  return /chromium/i.test(executable) ? 'chromium' : 'chrome';
}

/**
 * any: samples are the pages' getStats fields, whose set depends on the browser
 * @param {{ samples: Array<Record<string, any>>,
 *   browsers: Record<string, { kind: string, path: string, source: string, version: string|null|undefined, reused?: boolean|null }>,
 *   emulator: { name: string, choice?: string|null } | null, emulatorName: string,
 *   media: object, startedAt: Date, endedAt: Date, codecs: import('../lib/media/codec.js').CodecSummary,
 *   cgroups: import('../lib/result/result.js').Environment['cgroups'], grid?: import('../lib/result/result.js').GridRecord|null,
 *   mediaSource?: 'browser'|'rfc8867', fieldTrials?: string|null, sfu?: { name: string, version: string|null }|null }} input
 *   browsers: every peer's, with the version its browser reported (null if it never started) and whether it came from a
 *   suite's pool of kept browsers (null: no pool, or it never started); sfu: an SFU call's SFU
 * @returns {import('../lib/result/result.js').Environment}
 */
export function describeEnvironment({
  browsers, samples, emulator, emulatorName, media, startedAt, endedAt, codecs, cgroups, grid = null, mediaSource = 'browser', fieldTrials = null,
  sfu = null,
}) {
  // any: the media options as the run command parsed them, copied into the result as they are
  const { preset, video, audio, width, height, fps, frames, frameCode, peers } = /** @type {any} */ (media);
  /** @param {[string, typeof browsers[string]]} entry */
  const describePeer = ([peer, { kind, path: executable, source, version, reused = null }]) => [peer, {
    name: browserName(kind, executable),
    version: version?.replace(/^[^/]*\//, '') ?? null,
    path: executable,
    source,
    reused,
    missingFields: missingTimelineFields(samples.filter((sample) => sample.peer === peer)),
  }];
  const perPeer = Object.fromEntries(Object.entries(browsers).map(describePeer));
  // One line for the run (reports, run lists, a baseline's machine class): each distinct value, ' + ' between them.
  /** @param {'name'|'version'|'path'|'source'} field */
  const joined = (field) => [...new Set(Object.values(perPeer).map((entry) => entry[field]).filter((value) => value !== null))].join(' + ') || null;
  return {
    harnessVersion: HARNESS_VERSION,
    commit: harnessCommit(REPO_ROOT),
    treeDirty: harnessTreeDirty(REPO_ROOT),
    browser: { name: joined('name'), version: joined('version'), path: joined('path'), source: joined('source') },
    browsers: perPeer,
    emulator: emulator?.name ?? emulatorName,
    emulatorChoice: emulator?.choice ?? null,
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    node: process.version,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    media: { preset, video, audio, width, height, fps, frames, frameCode, peers },
    // RFC 8867 §4.3's video rates (150 kbps to 1.5 Mbps, starting at 150) or the browser's own (client-app/media-source.js)
    mediaSource,
    // Chromium field trials its peers ran with (--force-fieldtrials), null: the browser's own
    fieldTrials,
    codecs,
    cgroups,
    grid,
    // Only an SFU call has one: a mesh run's environment is as before.
    ...(sfu ? { sfu } : {}),
  };
}
