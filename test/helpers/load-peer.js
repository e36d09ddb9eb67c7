// The load participants' processes (sfu/load-peer), found by their binary's path in the tool cache
// (load-peer-<hash>/load-peer), for the tests that check none is left after a run; and what the browsers receive of them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe as stats } from '../../orchestrator/lib/stats/statistics.js';

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
 * (640×360 at 30 fps from the file), and its audio; returns each pair's seconds for further checks.
 * @param {any[]} timeline  result.json's, already cut to the measured window
 * @param {{ browsers: string[], loads: string[], minSeconds: number }} options
 * @returns {Array<{ browser: string, remote: string, seconds: any[] }>}
 */
export function assertBrowsersReceiveLoad(timeline, { browsers, loads, minSeconds }) {
  const median = (values) => stats(values).median;
  return browsers.flatMap((browser) => loads.map((remote) => {
    const seconds = timeline.filter((e) => e.peer === browser && e.remote === remote);
    assert.ok(seconds.length >= minSeconds, `${browser} sampled ${remote} ${seconds.length} s`);
    const fps = median(seconds.map((e) => e.video.recvFps ?? 0));
    const kbps = median(seconds.map((e) => e.video.recvKbps ?? 0));
    const width = median(seconds.map((e) => e.video.recvWidth ?? 0));
    assert.ok(fps >= 20 && kbps > 300 && width === 640, `${browser} receives ${remote} at ${fps} fps, ${kbps} kbps, width ${width}`);
    assert.ok(median(seconds.map((e) => e.audio.recvKbps ?? 0)) > 5, `${browser} receives ${remote}'s audio`);
    return { browser, remote, seconds };
  }));
}
