/**
 * Child-process host of UdpRelay (started by client.js through fork + IPC), so the relay's timers are not
 * delayed by the orchestrator's event loop. Exits when the parent disconnects, including when it dies.
 *
 * IPC: parent -> {id, method, params}; child -> {id, result} | {id, error: {name, message}}; {ready: true} once listening.
 */
import { raisePriority } from '../priority.js';
import { UdpRelay } from './relay.js';

if (!process.send) {
  console.error('relay-process.js is started by orchestrator/emulators/relay/client.js (fork with an IPC channel); use startRelayProcess().');
  process.exit(2);
}

const relay = new UdpRelay(JSON.parse(process.argv[2] ?? '{}'));
// Listen before any await, so a parent that dies during start-up is still noticed.
process.once('disconnect', async () => {
  await relay.close();
  process.exit(0);
});
// Ctrl-C reaches the whole process group; the parent decides when the relay goes (close or disconnect).
process.on('SIGINT', () => {});

// Relay timers matter more than the browsers' work on a shared machine.
const priority = await raisePriority(process.pid);
await relay.start();

/** @typedef {import('./relay.js').UdpRelay} UdpRelayApi */
/** @type {Record<string, (params: any) => unknown>} any: IPC carries JSON; UdpRelay validates its own inputs */
const methods = {
  configure: (/** @type {Parameters<UdpRelayApi['configure']>[0]} */ params) => relay.configure(params),
  restartTraces: (/** @type {number} */ epochMs) => relay.restartTraces(epochMs),
  register: (/** @type {Parameters<UdpRelayApi['register']>[0]} */ params) => relay.register(params),
  registerTunnel: (/** @type {Parameters<UdpRelayApi['registerTunnel']>[0]} */ params) => relay.registerTunnel(params),
  truth: () => relay.truth(),
  tunnelTruth: () => relay.tunnelTruth(),
  loadTruth: () => relay.loadTruth(),
  stats: () => ({ ...relay.stats(), priority }),
  close: () => relay.close(),
};

/** @param {object} message */
const reply = (message) => process.send?.(message);

process.on('message', async (/** @type {{id: number, method: string, params: unknown}} */ { id, method, params }) => {
  try {
    if (!Object.hasOwn(methods, method)) throw new Error(`unknown relay method "${method}"`);
    reply({ id, result: (await methods[method](params)) ?? null });
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    reply({ id, error: { name, message } });
  }
});

reply({ ready: true });
