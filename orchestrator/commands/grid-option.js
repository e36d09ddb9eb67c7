// --grid, --spread and --grid-secrets, for the commands that run scenarios: the Grid is checked before anything starts.
import { isIPv4 } from 'node:net';
import os from 'node:os';
import { gridStatus } from '../grid/client.js';
import { readSecrets } from '../grid/secrets.js';
import { InputError } from '../lib/system/errors.js';

/** @param {import('yargs').Argv} yargs */
export const gridOptions = (yargs) => yargs
  .option('grid', { describe: 'run every peer\'s browser as a session of this Selenium Grid 4 router or hub (http://host:port); Chromium only', type: 'string' })
  .option('spread', { describe: '--grid: put the peers round-robin on the nodes (default: fill each node first); a scenario\'s placement comes first', type: 'boolean', default: false })
  .option('grid-secrets', { describe: '--grid: the secrets file grid-hub wrote (default: this machine\'s, else $WTB_GRID_USERNAME and $WTB_GRID_PASSWORD…)', type: 'string' })
  .option('grid-listen', { describe: '--grid: this host\'s address the nodes\' browsers reach the pages and the relay on (an IPv4 address of one of its interfaces)', type: 'string', default: '127.0.0.1' });

/**
 * The run's grid option, after the hub answered (a hub that does not is exit 3 before anything starts), or undefined.
 * @param {{ grid?: string, spread?: boolean, gridSecrets?: string, gridListen?: string }} argv
 */
export async function gridRunOption(argv) {
  if (!argv.grid) {
    if (argv.spread) throw new InputError('--spread places peers on Grid nodes: it needs --grid <url>');
    return undefined;
  }
  if (!/^https?:\/\/[^/]+\/?$/.test(argv.grid)) throw new InputError(`--grid must be the router's or hub's URL, http://host:port, got ${argv.grid}`);
  const listen = checkListenAddress(argv.gridListen ?? '127.0.0.1');
  const secrets = readSecrets(argv.gridSecrets);
  await gridStatus(argv.grid, secrets);
  return { url: argv.grid, secrets, spread: Boolean(argv.spread), listen };
}

/**
 * One address of this host's interfaces: every interface (0.0.0.0) would open the pages and the relay to any network
 * the host is on, and the relay must name one address in the candidates it hands out.
 * @param {string} address
 */
export function checkListenAddress(address) {
  const own = Object.values(os.networkInterfaces()).flat().flatMap((entry) => (entry?.family === 'IPv4' ? [entry.address] : []));
  if (!isIPv4(address) || address === '0.0.0.0' || !own.includes(address)) {
    throw new InputError(`--grid-listen ${JSON.stringify(address)}: give one IPv4 address of this host the nodes can reach (this host has ${own.join(', ')})`);
  }
  return address;
}
