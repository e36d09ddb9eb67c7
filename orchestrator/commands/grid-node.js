import { isIPv4 } from 'node:net';
import os from 'node:os';
import { CACHE_DIR, ensureMedia } from '../../media/generate.js';
import { startNodeRelay } from '../emulators/index.js';
import { nodeRegistered } from '../grid/client.js';
import { startGridProcess, serveUntilSignal } from '../grid/process.js';
import { readSecrets } from '../grid/secrets.js';
import { CHROMEDRIVER_PATH } from '../grid/versions.js';
import { checkLabel, nodeStereotype } from '../lib/grid/grid.js';
import { nodeConfig } from '../lib/grid/grid-config.js';
import { InputError } from '../lib/system/errors.js';
import { DEFAULT_PRESET } from '../lib/media/media-presets.js';
import { resolveBrowserPath } from '../run/browser-path.js';

export const command = 'grid-node';
export const describe = 'Start a Selenium Grid 4 node for this project\'s peers: Chrome slots on the system Chromium, labelled, with the fake-device media staged';

/** A session without a WebDriver command for this long is killed by the node: runs keep theirs alive every few seconds. */
export const SESSION_TIMEOUT_S = 30;

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .option('hub', { describe: 'the hub\'s URL (http://host:port)', type: 'string', demandOption: true })
  .option('label', { describe: 'this node\'s label, for a scenario\'s placement (default: the host name)', type: 'string', default: os.hostname() })
  .option('max-sessions', { describe: 'browsers this node runs at once', type: 'number', default: 2 })
  .option('port', { describe: 'the node\'s port', type: 'number', default: 5555 })
  .option('host', { describe: 'the address the hub reaches this node on; an IPv4 address also runs the node\'s relay there', type: 'string', default: '127.0.0.1' })
  .option('relay-port', { describe: 'the node relay\'s control port (default: any free one; advertised in the stereotype)', type: 'number', default: 0 })
  .option('presets', { describe: 'video presets to stage for the peers', type: 'array', string: true, default: [DEFAULT_PRESET, '360p30'] })
  .option('grid-secrets', { describe: 'the secrets file grid-hub wrote (default: this machine\'s, else $WTB_GRID_REGISTRATION_SECRET…)', type: 'string' })
  .option('browser-path', { describe: 'Chromium executable (default: $CHROME_PATH, then well-known paths)', type: 'string' })
  .check((argv) => {
    checkLabel(argv.label);
    if (!Number.isInteger(argv.maxSessions) || argv.maxSessions < 1) throw new InputError(`--max-sessions must be a whole number above 0, got ${argv.maxSessions}`);
    if (!/^https?:\/\//.test(argv.hub)) throw new InputError(`--hub must be the hub's http:// URL, got ${argv.hub}`);
    if (!Number.isInteger(argv.relayPort) || argv.relayPort < 0 || argv.relayPort > 65535) throw new InputError(`--relay-port must be 0..65535, got ${argv.relayPort}`);
    return true;
  });

// any: yargs's parsed options, validated by the builder above
/** Runs until SIGINT or SIGTERM; then stops the node and every browser it started. @param {Record<string, any>} argv */
export async function handler(argv) {
  const secrets = readSecrets(argv.gridSecrets);
  const { registrationSecret } = secrets;
  // Loaded here, not with the CLI: every other command starts without puppeteer.
  const { default: puppeteer } = await import('puppeteer');
  const binary = resolveBrowserPath({ browserPath: argv.browserPath, puppeteerPath: () => puppeteer.executablePath() }).path;
  // The run names each peer's files; the node has the same ones under the same names (the names hash what made them).
  for (const preset of argv.presets) console.log(`staged ${preset}: ${(await ensureMedia(preset)).video}`);
  /** @type {number|null} java's pid once it runs: a run may read the memory of its descendants (the browsers) only */
  let seleniumPid = null;
  // The relay that shapes this node's peers (--emulator node-relay); a node named by a host name has none.
  const relay = isIPv4(argv.host) ? await startNodeRelay({
    address: argv.host, port: argv.relayPort, label: argv.label, registrationSecret, log: console.log, processRoot: () => seleniumPid,
  }) : null;
  if (relay) console.log(`node relay: control on ${relay.control}`);
  const cores = os.availableParallelism();
  const stereotype = nodeStereotype({ label: argv.label, binary, mediaDir: CACHE_DIR, cores, relay: relay?.control });
  const nodeUrl = `http://${argv.host}:${argv.port}`;
  const node = await startGridProcess({
    role: 'node', name: `node-${argv.port}`, log: console.log, host: argv.host, ports: [{ port: argv.port, what: '--port' }],
    config: nodeConfig({
      hubUrl: argv.hub, host: argv.host, port: argv.port, registrationSecret, maxSessions: argv.maxSessions,
      sessionTimeoutS: SESSION_TIMEOUT_S, driverPath: CHROMEDRIVER_PATH, stereotype, label: argv.label,
    }),
    // Ready once the hub lists this node itself, not another one answering on its port.
    isReady: () => nodeRegistered({ hubUrl: argv.hub, nodeUrl, label: argv.label, secrets }),
  }).catch(async (error) => { await relay?.close(); throw error; });
  seleniumPid = node.pid;
  console.log(`grid node ${argv.label}: ${nodeUrl}, ${argv.maxSessions} Chrome slots, registered with ${argv.hub} (Ctrl-C to stop)`);
  const why = await serveUntilSignal(node, async () => relay?.close());
  console.log(`grid node ${argv.label} stopped (${why})`);
  if (why !== 'signal') process.exitCode = 3;
}
