import { startGridProcess, serveUntilSignal } from '../grid/process.js';
import { generateSecrets, writeLocalSecrets } from '../grid/secrets.js';
import { eventPorts, hubConfig } from '../lib/grid/grid-config.js';
import { InputError } from '../lib/system/errors.js';

export const command = 'grid-hub';
export const describe = 'Start a Selenium Grid 4 hub with a new node registration secret and router credentials (written 0600 for this machine\'s commands)';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .option('port', { describe: 'the hub\'s port; its event bus takes the two below it', type: 'number', default: 4444 })
  .option('host', { describe: 'the address it listens on; other hosts\' nodes and orchestrators need a non-loopback one', type: 'string', default: '127.0.0.1' })
  .check((argv) => {
    if (!Number.isInteger(argv.port) || argv.port < 1026 || argv.port > 65535) throw new InputError(`--port must be a port from 1026 to 65535 (the event bus takes the two below it), got ${argv.port}`);
    return true;
  });

/** Runs until SIGINT or SIGTERM; then stops the hub and removes its secrets file. @param {{ port: number, host: string }} argv */
export async function handler(argv) {
  const hubUrl = `http://${argv.host}:${argv.port}`;
  const secrets = generateSecrets();
  const secretsFile = await writeLocalSecrets({ ...secrets, hubUrl });
  let hub;
  try {
    hub = await startGridProcess({
      role: 'hub', name: `hub-${argv.port}`, config: hubConfig({ host: argv.host, port: argv.port, secrets }), log: console.log,
      host: argv.host, ports: [{ port: argv.port, what: '--port' }, ...Object.values(eventPorts(argv.port)).map((port) => ({ port, what: 'the event bus (below --port)' }))],
      // Up once it answers /status at all: "ready" waits for a node. Its body is not needed.
      isReady: async () => {
        const reply = await fetch(`${hubUrl}/status`, { signal: AbortSignal.timeout(2000) });
        await reply.body?.cancel();
        return reply.status < 500;
      },
    });
  } catch (error) {
    secretsFile.remove();
    throw error;
  }
  console.log(`grid hub: ${hubUrl} (secrets for this machine's commands: ${secretsFile.file}; Ctrl-C to stop)`);
  const why = await serveUntilSignal(hub, async () => secretsFile.remove());
  console.log(`grid hub stopped (${why})`);
  if (why !== 'signal') process.exitCode = 3;
}
