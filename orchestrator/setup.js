#!/usr/bin/env node
// `npm run setup`: idempotent machine set-up. Uses Node built-ins only, because it runs before `npm install`.
//   1. system packages (apt-get when root on Debian/Ubuntu; otherwise prints the exact command to run); Firefox ESR
//      where the package sources have it (Debian), else how to get it (only Firefox scenarios need it)
//   2. npm dependencies (Puppeteer's own browser download skipped when a system Chromium exists)
//   3. Selenium Grid (`--grid`, grid-hub, grid-node): Java and chromium-driver from Debian, the Grid's jars from Maven
//      Central into ~/.cache/webrtc-testbed (versions pinned in grid/versions.js); a driver that is not Chromium's is an error
//   4. PyPI's imageio-ffmpeg (pinned) in a venv of its own: its static ffmpeg has libvmaf, for VMAF scores; PyPI's
//      visqol-python with numba (pinned) in the same venv, for audio quality (ViSQOL), its JIT cache warmed
//   5. the relay's native packet path (orchestrator/emulators/relay/native), compiled with npm's own node-gyp
//   6. livekit-server (the second SFU), built with the machine's Go (≥ 1.24) from the Go module proxy's source of the
//      pinned release into ~/.cache/webrtc-testbed (lib/system/paths.js); without such a Go, LiveKit runs are refused
//   6b. the load participant (orchestrator/sfu/load-peer, Pion and LiveKit's Go SDK), built with the same Go (≥ 1.26)
//      from its committed go.mod/go.sum into ~/.cache/webrtc-testbed keyed by its source's hash; without it, scenarios
//      with load participants are refused
//   7. the default fake-device media (and the small preset the tests use), and their WebMs for Firefox peers
// `--npm-only`: step 2 alone (CI jobs that only merge and report).
// Every command it runs is printed with a leading "$ " so the set-up can be audited and repeated by hand.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { CHROMEDRIVER_PACKAGE, JAVA_PACKAGE, driverMismatch, gridJarsDir, gridPom } from './grid/versions.js';
import {
  IMAGEIO_FFMPEG_VERSION, LIVEKIT_GO_MINIMUM, LIVEKIT_SERVER_VERSION, LOAD_PEER_GO_MINIMUM, LOAD_PEER_SOURCE, VISQOL_PACKAGES, VMAF_VENV,
  livekitServerPath, loadPeerPath,
} from './lib/system/paths.js';
import { FIREFOX_HINT, WELL_KNOWN_BROWSER_PATHS, WELL_KNOWN_FIREFOX_PATHS } from './run/browser-path.js';

const root = fileURLToPath(new URL('../', import.meta.url));
/** Debian package -> the executable that shows it is installed. */
const SYSTEM_PACKAGES = {
  chromium: 'chromium',
  ffmpeg: 'ffmpeg',
  iproute2: 'ip',
  nftables: 'nft',
  iperf3: 'iperf3',
  // The relay's wire check (test/relay-wire.test.js) captures on lo.
  tcpdump: 'tcpdump',
  socat: 'socat',
  ethtool: 'ethtool',
  janus: 'janus',
  // The TURN server of `turn` scenarios (run/turn-server.js); the package starts no service.
  coturn: 'turnserver',
  'firefox-esr': 'firefox-esr',
  // better-sqlite3 (the results store) is built from source at npm ci (.prebuild-installrc): no binary download.
  'build-essential': 'g++',
  python3: 'python3',
  // The shared results store's server; the history tests start a throwaway cluster of it.
  postgresql: 'pg_ctlcluster',
  [JAVA_PACKAGE]: 'java',
  maven: 'mvn',
  [CHROMEDRIVER_PACKAGE]: 'chromedriver',
  'python3-venv': 'python3',
};

/** @param {string} executable */
const onPath = (executable) => spawnSync('sh', ['-c', `command -v ${executable}`], { stdio: 'ignore' }).status === 0;

/**
 * Runs a set-up step, printed first; a failure ends the set-up with what to do.
 * @param {string} command @param {string[]} args @param {import('node:child_process').SpawnSyncOptions} [options]
 */
function run(command, args, options = {}) {
  console.log(`$ ${[...Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`), command, ...args].join(' ')}`);
  const { status } = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options, env: { ...process.env, ...options.env } });
  if (status !== 0) {
    console.error(`setup: \`${command} ${args.join(' ')}\` failed with exit code ${status}; fix the cause above and run \`npm run setup\` again.`);
    process.exit(3);
  }
}

const hasSystemBrowser = () => Boolean(process.env.CHROME_PATH) || WELL_KNOWN_BROWSER_PATHS.some((p) => existsSync(p));
const hasFirefox = () => Boolean(process.env.FIREFOX_PATH) || WELL_KNOWN_FIREFOX_PATHS.some((p) => existsSync(p));
const hasVenv = () => spawnSync('python3', ['-c', 'import ensurepip, venv'], { stdio: 'ignore' }).status === 0;
/** @type {Record<string, () => boolean>} packages that an executable on PATH does not prove installed */
const installed = { chromium: hasSystemBrowser, 'firefox-esr': hasFirefox, 'python3-venv': hasVenv };
/** Ubuntu has no firefox-esr package (its firefox is a snap): there the set-up says how to get Firefox and goes on. */
/** @param {string} pkg */
const aptHas = (pkg) => /Candidate: (?!\(none\))/.test(spawnSync('apt-cache', ['policy', pkg], { encoding: 'utf8' }).stdout ?? '');
const missingAll = Object.entries(SYSTEM_PACKAGES)
  .filter(([pkg, executable]) => !(installed[pkg]?.() ?? onPath(executable)))
  .map(([pkg]) => pkg);
const firefoxUnavailable = missingAll.includes('firefox-esr') && !(onPath('apt-cache') && aptHas('firefox-esr'));
const missing = missingAll.filter((pkg) => !(pkg === 'firefox-esr' && firefoxUnavailable));
const npmOnly = process.argv.includes('--npm-only');
if (firefoxUnavailable && !npmOnly) console.error(`setup: no firefox-esr package here; Firefox scenarios (cross-browser-firefox, --browser firefox) need Firefox. ${FIREFOX_HINT}`);

if (npmOnly) {
  console.log('--npm-only: system packages and media left as they are');
} else if (missing.length) {
  const apt = ['apt-get', 'install', '-y', '--no-install-recommends', ...missing];
  if (process.getuid?.() === 0 && onPath('apt-get')) {
    run('apt-get', ['update', '-qq']);
    run(apt[0], apt.slice(1), { env: { DEBIAN_FRONTEND: 'noninteractive' } });
  } else {
    console.error(`setup: missing system packages: ${missing.join(', ')}. Install them, then run \`npm run setup\` again:\n  sudo apt-get update && sudo ${apt.join(' ')}\n(on macOS: brew install --cask chromium && brew install ffmpeg iperf3)`);
    process.exit(3);
  }
} else {
  console.log(`system packages present: ${Object.keys(SYSTEM_PACKAGES).join(', ')}`);
}

if (!npmOnly) {
  installGridJars();
  checkChromedriver();
  // Only from PyPI, never a download of its own: the wheel carries the ffmpeg binary.
  const vmafPython = path.join(VMAF_VENV, 'bin', 'python');
  if (!existsSync(vmafPython)) run('python3', ['-m', 'venv', VMAF_VENV]);
  run(vmafPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', `imageio-ffmpeg==${IMAGEIO_FFMPEG_VERSION}`]);
  // ViSQOL for audio quality (run/audio-quality.js), in the same venv; one score on noise compiles numba's kernels into
  // its cache (~25 s), so a run's first scoring does not pay for it.
  run(vmafPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', ...VISQOL_PACKAGES]);
  run(vmafPython, ['-I', '-c', 'import numpy as n; from visqol import VisqolApi as V; a = V(); a.create(mode="audio"); '
    + 'x = n.random.default_rng(0).standard_normal(96000) * 0.1; a.measure_from_arrays(x, x, 48000)']);
}

const npmEnv = { npm_config_nodedir: nodeHeadersPrefix(), ...(hasSystemBrowser() ? { PUPPETEER_SKIP_DOWNLOAD: 'true' } : {}) };
run('npm', [existsSync(path.join(root, 'package-lock.json')) ? 'ci' : 'install', '--no-audit', '--no-fund'], { env: npmEnv });
if (!npmOnly) {
  buildRelayAddon();
  buildLivekitServer();
  buildLoadPeer();
  // A Firefox peer plays a WebM of the same media (media/generate.js ensureCaptureFile): encoded once, here.
  run(process.execPath, ['media/generate.js', ...(hasFirefox() ? ['--capture'] : []), '720p30', '360p30']);
}
console.log(npmOnly ? 'setup --npm-only complete' : 'setup complete: run `npm run scenario latency-500` or `npm test`');

/**
 * Where this Node's headers are (<prefix>/include/node: Debian's nodejs, the nodejs.org builds, setup-node), so
 * node-gyp compiles better-sqlite3 against them instead of downloading headers from nodejs.org.
 */
function nodeHeadersPrefix() {
  const prefix = path.dirname(path.dirname(process.execPath));
  if (existsSync(path.join(prefix, 'include', 'node', 'node.h'))) return prefix;
  console.error(`setup: this Node (${process.execPath}) has no headers in ${path.join(prefix, 'include', 'node')}, which the results store's better-sqlite3 is compiled against; install a Node that ships them (Debian's nodejs package, or a build from nodejs.org) and run \`npm run setup\` again.`);
  return process.exit(3);
}

/**
 * The relay's native packet path, from its C source with the node-gyp that ships with npm and this Node's headers.
 * Optional: without it the relay runs on Node's dgram (fewer packets/s, whole-ms timers) and says so in its stats.
 */
function buildRelayAddon() {
  const npmRoot = spawnSync('npm', ['root', '-g'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  const nodeGyp = path.join(npmRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  const args = [nodeGyp, 'rebuild', '--directory', 'orchestrator/emulators/relay/native'];
  console.log(`$ npm_config_nodedir=${nodeHeadersPrefix()} ${process.execPath} ${args.join(' ')}`);
  const { status } = existsSync(nodeGyp)
    ? spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root, env: { ...process.env, npm_config_nodedir: nodeHeadersPrefix() } })
    : { status: null };
  if (status !== 0) console.error(`setup: the relay's native packet path was not built (${existsSync(nodeGyp) ? `node-gyp exited with ${status}` : `no node-gyp at ${nodeGyp}`}); the relay falls back to Node's dgram, which saturates sooner and times in whole ms. Install build-essential and run \`npm run setup\` again for it.`);
}

/**
 * livekit-server from its Go module's source (the proxy's zip, checked against the checksum database by `go`), built
 * where the harness looks for it. GOTOOLCHAIN=local: an older Go must not fetch a newer toolchain by itself.
 * Optional: without a Go that can build it, only LiveKit runs are refused, naming this step.
 */
function buildLivekitServer() {
  const binary = livekitServerPath();
  if (existsSync(binary)) return console.log(`livekit-server ${LIVEKIT_SERVER_VERSION} present: ${binary}`);
  const env = goEnvironment('livekit-server', 'only --sfu livekit runs are refused', LIVEKIT_GO_MINIMUM);
  if (!env) return undefined;
  const module = `github.com/livekit/livekit-server@v${LIVEKIT_SERVER_VERSION}`;
  console.log(`$ GOTOOLCHAIN=local go mod download -json ${module}`);
  const download = spawnSync('go', ['mod', 'download', '-json', module], { encoding: 'utf8', cwd: os.tmpdir(), env: { ...process.env, ...env } });
  /** @type {unknown} */
  let info = null;
  try { info = JSON.parse(download.stdout); } catch { /* reported below */ }
  const sourceDir = info && typeof info === 'object' && 'Dir' in info && typeof info.Dir === 'string' ? info.Dir : null;
  if (download.status !== 0 || !sourceDir) {
    console.error(`setup: \`go mod download ${module}\` failed (exit ${download.status}): ${download.stderr.trim()}\nCheck that the Go module proxy ($GOPROXY) is reachable and run \`npm run setup\` again.`);
    return process.exit(3);
  }
  // The module cache is read-only: build in a copy of it.
  const work = mkdtempSync(path.join(os.tmpdir(), 'wtb-livekit-'));
  try {
    run('cp', ['-R', `${sourceDir}/.`, work]);
    run('chmod', ['-R', 'u+w', work]);
    mkdirSync(path.dirname(binary), { recursive: true });
    run('go', ['build', '-trimpath', '-o', binary, './cmd/server'], { cwd: work, env });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * GOTOOLCHAIN=local (an older Go must not fetch a newer toolchain by itself) when the machine's Go is new enough, else
 * null after saying what is refused until one is installed.
 * @param {string} what @param {string} refused @param {number[]} minimum  [major, minor]
 */
function goEnvironment(what, refused, minimum) {
  const env = { GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' };
  const goVersion = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8', env: { ...process.env, ...env } }).stdout?.trim() ?? '';
  const [major, minor] = (/^go(\d+)\.(\d+)/.exec(goVersion) ?? []).slice(1).map(Number);
  const [needMajor, needMinor] = minimum;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return env;
  console.error(`setup: ${what} was not built: it needs Go ≥ ${needMajor}.${needMinor} (${goVersion ? `this one is ${goVersion}` : 'no `go` on PATH'}; Debian 12's golang is 1.19). Install Go ${needMajor}.${needMinor} or newer (https://go.dev/doc/install) and run \`npm run setup\` again; until then ${refused}.`);
  return null;
}

/**
 * The load participant (issue 41) from its source in the repository; its dependencies (Pion, LiveKit's Go SDK) come
 * from the Go module proxy, checked by go.sum and the checksum database.
 */
function buildLoadPeer() {
  const binary = loadPeerPath();
  if (existsSync(binary)) return console.log(`load-peer present: ${binary}`);
  const env = goEnvironment('load-peer', 'scenarios with load participants are refused', LOAD_PEER_GO_MINIMUM);
  if (!env) return undefined;
  mkdirSync(path.dirname(binary), { recursive: true });
  return run('go', ['build', '-trimpath', '-o', binary, '.'], { cwd: LOAD_PEER_SOURCE, env });
}

/** The Grid's jars with their dependencies, from Maven Central through Maven's own resolver (its ~/.m2 cache). */
function installGridJars() {
  const dir = gridJarsDir();
  if (existsSync(dir) && readdirSync(dir).some((name) => name.startsWith('selenium-grid-'))) return console.log(`Selenium Grid jars present: ${dir}`);
  const pomDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-grid-pom-'));
  writeFileSync(path.join(pomDir, 'pom.xml'), gridPom());
  try {
    run('mvn', ['-q', '-f', path.join(pomDir, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${dir}`]);
  } finally {
    rmSync(pomDir, { recursive: true, force: true });
  }
}

/** Grid sessions drive the system Chromium through chromedriver: the two must be one version. */
function checkChromedriver() {
  if (!hasSystemBrowser() || !onPath('chromedriver')) return;
  /** @param {string} command */
  const version = (command) => spawnSync(command, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  const browser = process.env.CHROME_PATH || WELL_KNOWN_BROWSER_PATHS.find((p) => existsSync(p)) || 'chromium';
  const mismatch = driverMismatch(version(browser), version('chromedriver'));
  if (mismatch) {
    console.error(`setup: ${mismatch}`);
    process.exit(3);
  }
}
