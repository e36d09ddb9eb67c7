import { storeTarget } from '../history/store.js';

export const command = 'serve';
export const describe = 'Browse the results directory (index and reports) on 127.0.0.1';

/** @param {import('yargs').Argv} yargs */
export function builder(yargs) {
  return yargs
    .option('port', { type: 'number', default: 8080, describe: 'TCP port; 0 picks a free one' })
    .option('dir', { type: 'string', default: 'results', describe: 'Results directory to serve' })
    .option('store', {
      type: 'string',
      describe: 'results store (file or postgres:// URL) whose trend dashboard to serve at /trends.html, read-only; without a value: $HISTORY_STORE, else results/history.sqlite',
    });
}

/** Serves until SIGINT or SIGTERM, then closes the server. @param {{port: number, dir: string, store?: string}} argv */
export async function handler(argv) {
  const trendsStore = argv.store === undefined ? null : storeTarget(argv.store);
  // Loaded here, not with the CLI (express): every other command starts without it.
  const { startServer } = await import('./serve-server.js');
  const server = await startServer({ dir: argv.dir, port: argv.port, trendsStore });
  console.log(`Serving ${argv.dir} at ${server.url} (Ctrl-C to stop)${trendsStore ? `; trends at ${server.url}trends.html` : ''}`);
  await /** @type {Promise<void>} */ (new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }));
  await server.close();
}
