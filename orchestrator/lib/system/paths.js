// Where the harness lives and where runs write: one definition for every command.
import { createHash } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const RESULTS_ROOT = path.join(REPO_ROOT, 'results');
/** The Python venv `npm run setup` puts PyPI's imageio-ffmpeg into: its static ffmpeg has libvmaf (Debian's has not). */
export const VMAF_VENV = process.env.WEBRTC_TESTBED_VMAF_VENV ?? path.join(os.homedir(), '.cache', 'webrtc-testbed', 'venv');
/** Pinned: the ffmpeg it ships, and so the VMAF scores, change with its version. */
export const IMAGEIO_FFMPEG_VERSION = '0.8.1';
/**
 * Pinned, installed by `npm run setup` into the same venv: ViSQOL v3 in pure Python (Apache-2.0) for audio quality, with
 * its dependencies and numba (its optional JIT: ~3 s instead of ~21 s per 10 s window), so the scores do not move
 * with a release of any of them.
 */
export const VISQOL_PACKAGES = ['visqol-python==3.8.0', 'numba==0.68.1', 'llvmlite==0.50.0', 'numpy==2.4.6', 'scipy==1.17.1',
  'soundfile==0.14.0', 'libsvm-official==3.37.0', 'cffi==2.1.1', 'pycparser==3.12'];
/**
 * Pinned: the newest livekit-server whose dependencies the Go module proxy serves in full (from 1.10 it replaces pion
 * with LiveKit's forks, github.com/livekit/webrtc-pion, which proxies may refuse). It needs Go ≥ 1.24 to build.
 */
export const LIVEKIT_SERVER_VERSION = '1.9.11';
export const LIVEKIT_GO_MINIMUM = [1, 24];
/** The harness's own cache of what `npm run setup` installs outside npm ($XDG_CACHE_HOME or ~/.cache). */
export const toolCacheDir = (env = process.env) => path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'webrtc-testbed');
/** Where `npm run setup` builds livekit-server from its Go module source. */
export const livekitServerPath = (env = process.env) => path.join(toolCacheDir(env), `livekit-server-${LIVEKIT_SERVER_VERSION}`, 'livekit-server');

/** The load participant's Go source (issue 41: Pion, go.mod and go.sum beside it), which `npm run setup` builds. */
export const LOAD_PEER_SOURCE = path.join(REPO_ROOT, 'orchestrator', 'sfu', 'load-peer');
/** LiveKit's Go SDK (github.com/livekit/server-sdk-go/v2 2.18.0), which it joins LiveKit rooms with, needs Go ≥ 1.26. */
export const LOAD_PEER_GO_MINIMUM = [1, 26];
/**
 * Where `npm run setup` builds it: keyed by a hash of its source files, so an edited source is built again and a run
 * never uses a binary of other source.
 */
export function loadPeerPath(env = process.env) {
  const hash = createHash('sha256');
  for (const name of readdirSync(LOAD_PEER_SOURCE).filter((file) => /\.go$|^go\.(mod|sum)$/.test(file)).sort()) {
    hash.update(`${name}\0`).update(readFileSync(path.join(LOAD_PEER_SOURCE, name))).update('\0');
  }
  return path.join(toolCacheDir(env), `load-peer-${hash.digest('hex').slice(0, 12)}`, 'load-peer');
}

/**
 * The first executable file of that name on a PATH-like list of folders, or null.
 * @param {string} name @param {string} searchPath
 * @returns {string|null}
 */
export function findExecutable(name, searchPath) {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return null;
}
