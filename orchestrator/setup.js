#!/usr/bin/env node
// `npm run setup`: idempotent machine set-up. Uses Node built-ins only, because it runs before `npm install`.
//   1. system packages (apt-get when root on Debian/Ubuntu; otherwise prints the exact command to run); Firefox ESR
//      where the package sources have it (Debian), else how to get it (only Firefox scenarios need it)
//   2. npm dependencies (Puppeteer's own browser download skipped when a system Chromium exists)
//   3. PyPI's imageio-ffmpeg (pinned) in a venv of its own: its static ffmpeg has libvmaf, for VMAF scores
//   4. the default fake-device media (and the small preset the tests use), and their WebMs for Firefox peers
// Every command it runs is printed with a leading "$ " so the set-up can be audited and repeated by hand.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IMAGEIO_FFMPEG_VERSION, VMAF_VENV } from './lib/paths.js';
import { FIREFOX_HINT, WELL_KNOWN_BROWSER_PATHS, WELL_KNOWN_FIREFOX_PATHS } from './run/browser-path.js';

const root = fileURLToPath(new URL('../', import.meta.url));
/** Debian package -> the executable that shows it is installed. */
const SYSTEM_PACKAGES = {
  chromium: 'chromium',
  ffmpeg: 'ffmpeg',
  iproute2: 'ip',
  nftables: 'nft',
  iperf3: 'iperf3',
  socat: 'socat',
  ethtool: 'ethtool',
  janus: 'janus',
  'firefox-esr': 'firefox-esr',
  'python3-venv': 'python3',
};

const onPath = (executable) => spawnSync('sh', ['-c', `command -v ${executable}`], { stdio: 'ignore' }).status === 0;

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
const installed = { chromium: hasSystemBrowser, 'firefox-esr': hasFirefox, 'python3-venv': hasVenv };
/** Ubuntu has no firefox-esr package (its firefox is a snap): there the set-up says how to get Firefox and goes on. */
const aptHas = (pkg) => /Candidate: (?!\(none\))/.test(spawnSync('apt-cache', ['policy', pkg], { encoding: 'utf8' }).stdout ?? '');
const missingAll = Object.entries(SYSTEM_PACKAGES)
  .filter(([pkg, executable]) => !(installed[pkg]?.() ?? onPath(executable)))
  .map(([pkg]) => pkg);
const firefoxUnavailable = missingAll.includes('firefox-esr') && !(onPath('apt-cache') && aptHas('firefox-esr'));
const missing = missingAll.filter((pkg) => !(pkg === 'firefox-esr' && firefoxUnavailable));
if (firefoxUnavailable) console.error(`setup: no firefox-esr package here; Firefox scenarios (cross-browser-firefox, --browser firefox) need Firefox. ${FIREFOX_HINT}`);

if (missing.length) {
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

// Only from PyPI, never a download of its own: the wheel carries the ffmpeg binary.
const vmafPython = path.join(VMAF_VENV, 'bin', 'python');
if (!existsSync(vmafPython)) run('python3', ['-m', 'venv', VMAF_VENV]);
run(vmafPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', `imageio-ffmpeg==${IMAGEIO_FFMPEG_VERSION}`]);

const npmEnv = hasSystemBrowser() ? { PUPPETEER_SKIP_DOWNLOAD: 'true' } : {};
run('npm', [existsSync(path.join(root, 'package-lock.json')) ? 'ci' : 'install', '--no-audit', '--no-fund'], { env: npmEnv });
// A Firefox peer plays a WebM of the same media (media/generate.js ensureCaptureFile): encoded once, here.
run(process.execPath, ['media/generate.js', ...(hasFirefox() ? ['--capture'] : []), '720p30', '360p30']);
console.log('setup complete: run `npm run scenario latency-500` or `npm test`');
