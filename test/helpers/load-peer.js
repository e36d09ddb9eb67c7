// The load participants' processes (sfu/load-peer), found by their binary's path in the tool cache
// (load-peer-<hash>/load-peer), for the tests that check none is left after a run; hostile ones in a tool cache of
// their own; and what the browsers receive of them.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './cli.js';
import { MAX_LOAD_LINE_CHARS } from '../../orchestrator/lib/input/limits.js';
import { livekitServerPath, loadPeerPath } from '../../orchestrator/lib/system/paths.js';
import { describe as stats } from '../../orchestrator/lib/stats/statistics.js';

/**
 * sfu-load-4 with some of its fields replaced, as a scenario file of the test's own named `name`.
 * @param {string} name @param {Record<string, unknown>} fields
 * @returns {string} the file
 */
export function sfuLoad4File(name, fields) {
  const shipped = JSON.parse(readFileSync(new URL('../../orchestrator/scenarios/sfu-load-4.json', import.meta.url), 'utf8'));
  const file = path.join(tempDir(`wtb-${name}-`), `${name}.json`);
  writeFileSync(file, JSON.stringify({ ...shipped, name, ...fields }));
  return file;
}

/**
 * sfu-load-4 with one schedule step from the start (e.g. a delay or loss on one participant's link).
 * @param {string} name @param {{ links: string[], set: Record<string, number> }} step
 */
export const sfuLoad4With = (name, step) => sfuLoad4File(name, { network: { schedule: [{ at: 0, ...step }] } });

/**
 * sfu-load-4 whose load participants receive only `speaker`'s streams (a speaker view) and whose browsers receive
 * them as thumbnails. @param {string} speaker
 */
export const sfuLoad4Speaker = (speaker) => sfuLoad4File('sfu-load-4-speaker', {
  load: { participants: 2, subscribe: 'speaker', speaker, browsersReceive: 'thumbnail' },
});

/**
 * Asserts that load participant `name` received the speaker's streams and nothing else: second by second, what it
 * counted is what the other browser received of the speaker (0.85–1.15 at the median; it counts RTP headers, which
 * getStats leaves out, and its seconds are not the pages').
 * @param {any} result  result.json
 * @param {{ name: string, speaker: string, browser: string, inWindow: (row: { t: number }) => boolean }} options
 */
export function assertReceivesSpeakerOnly(result, { name, speaker, browser, inWindow }) {
  const median = (values) => stats(values).median;
  const ofSpeaker = new Map(result.timeline.filter((/** @type {any} */ e) => inWindow(e) && e.peer === browser && e.remote === speaker)
    .map((/** @type {any} */ e) => [Math.round(e.t), (e.video.recvKbps ?? 0) + (e.audio.recvKbps ?? 0)]));
  const rows = result.load.rows.filter((/** @type {any} */ row) => inWindow(row) && row.participant === name);
  const ratios = rows.map((/** @type {any} */ row) => row.receivedKbps / (ofSpeaker.get(Math.round(row.t)) ?? NaN)).filter(Number.isFinite);
  assert.ok(rows.length >= 5 && ratios.length >= rows.length - 3 && median(ratios) >= 0.85 && median(ratios) <= 1.15,
    `${name} received / ${browser} received of ${speaker}: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
}

/** What a hostile load participant writes before it hangs on: shell commands writing its stdout. */
const HOSTILE_OUTPUT = {
  /** One line twice over the bound. */
  longLine: `head -c ${2 * MAX_LOAD_LINE_CHARS} /dev/zero | tr '\\0' x`,
  /** A well-formed offer of its publishing connection: a line only a participant joining by descriptions may write. */
  description: `printf '%s\\n' '{"type":"offer","pc":"pub","sdp":"v=0\\r\\n"}'`,
};

/**
 * A tool cache of its own whose load-peer is a hostile shell script (it writes `mode`'s output, then hangs on: its shell
 * keeps the command line that loadPeerProcesses looks for); its livekit-server is the real one's, linked.
 * @param {keyof typeof HOSTILE_OUTPUT} mode
 * @returns {{ XDG_CACHE_HOME: string }}  the environment of a run that uses it
 */
export function hostileLoadPeerCache(mode) {
  const env = { XDG_CACHE_HOME: tempDir('wtb-load-hostile-cache-') };
  const binary = loadPeerPath({ ...process.env, ...env });
  mkdirSync(path.dirname(binary), { recursive: true });
  writeFileSync(binary, `#!/bin/sh\n${HOSTILE_OUTPUT[mode]}\nwhile :; do sleep 1; done\n`);
  chmodSync(binary, 0o755);
  symlinkSync(path.dirname(livekitServerPath()), path.dirname(livekitServerPath({ ...process.env, ...env })));
  return env;
}

/** The load-peer processes running now. @returns {Array<{ pid: number, cmdline: string }>} */
export function loadPeerProcesses() {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return /webrtc-testbed\/load-peer-[0-9a-f]+\/load-peer /.test(cmdline) ? [{ pid: Number(pid), cmdline }] : [];
    } catch {
      return [];
    }
  });
}

/**
 * Asserts that every browser receives every load participant's video as a peer's, at the participant's top layer
 * (640×360 at 30 fps from the file) or as a thumbnail (its lowest, 160×90), and its audio; returns each pair's seconds
 * for further checks.
 * @param {any[]} timeline  result.json's, already cut to the measured window
 * @param {{ browsers: string[], loads: string[], minSeconds: number, thumbnail?: boolean }} options
 * @returns {Array<{ browser: string, remote: string, seconds: any[] }>}
 */
export function assertBrowsersReceiveLoad(timeline, { browsers, loads, minSeconds, thumbnail = false }) {
  const [wantWidth, minKbps] = thumbnail ? [160, 15] : [640, 300];
  const median = (values) => stats(values).median;
  return browsers.flatMap((browser) => loads.map((remote) => {
    const seconds = timeline.filter((e) => e.peer === browser && e.remote === remote);
    assert.ok(seconds.length >= minSeconds, `${browser} sampled ${remote} ${seconds.length} s`);
    const fps = median(seconds.map((e) => e.video.recvFps ?? 0));
    const kbps = median(seconds.map((e) => e.video.recvKbps ?? 0));
    const width = median(seconds.map((e) => e.video.recvWidth ?? 0));
    assert.ok(fps >= 20 && kbps > minKbps && width === wantWidth, `${browser} receives ${remote} at ${fps} fps, ${kbps} kbps, width ${width}`);
    assert.ok(median(seconds.map((e) => e.audio.recvKbps ?? 0)) > 5, `${browser} receives ${remote}'s audio`);
    return { browser, remote, seconds };
  }));
}

/**
 * What a load participant sent crossed its own uplink: the emulator's bytes out of `<name>.up` within 0.8–1.25 of the
 * participant's own count, over the seconds `inWindow` keeps.
 * @param {any} result  result.json  @param {string} name  @param {(row: { t: number }) => boolean} inWindow
 */
export function assertUplinkCarriesSent(result, name, inWindow) {
  const sentKbit = result.load.rows.filter((/** @type {any} */ row) => inWindow(row) && row.participant === name)
    .reduce((/** @type {number} */ sum, /** @type {any} */ row) => sum + row.sentKbps, 0);
  const upKbit = result.network.truth.filter((/** @type {any} */ row) => inWindow(row) && row.link === `${name}.up`)
    .reduce((/** @type {number} */ sum, /** @type {any} */ row) => sum + row.bytesOut * 8 / 1000, 0);
  assert.ok(sentKbit > 0 && upKbit > 0.8 * sentKbit && upKbit < 1.25 * sentKbit, `${name}.up carried ${upKbit.toFixed(0)} kbit, ${name} sent ${sentKbit.toFixed(0)}`);
}
