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

const methods = {
  configure: (params) => relay.configure(params),
  restartTraces: (epochMs) => relay.restartTraces(epochMs),
  register: (params) => relay.register(params),
  registerTunnel: (params) => relay.registerTunnel(params),
  truth: () => relay.truth(),
  tunnelTruth: () => relay.tunnelTruth(),
  loadTruth: () => relay.loadTruth(),
  stats: () => ({ ...relay.stats(), priority }),
  close: () => relay.close(),
};

process.on('message', async ({ id, method, params }) => {
  try {
    if (!Object.hasOwn(methods, method)) throw new Error(`unknown relay method "${method}"`);
    process.send({ id, result: (await methods[method](params)) ?? null });
  } catch (error) {
    process.send({ id, error: { name: error.name, message: error.message } });
  }
});

process.send({ ready: true });
