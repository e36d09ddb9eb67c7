/**
 * Child-process host of UdpRelay (started by client.js through fork + IPC), so the relay's timers are not
 * delayed by the orchestrator's event loop. Exits when the parent disconnects, including when it dies.
 *
 * IPC: parent -> {id, method, params}; child -> {id, result} | {id, error: {name, message}}; {ready: true} once listening.
 */
import { describeKind, fieldOf } from '../../lib/input/validate.js';
import { HarnessError } from '../../lib/system/errors.js';
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

/**
 * A method's params object. Its fields are in the shape client.js's RelayProcess types them (the parent is this harness;
 * a remote run's were checked by node-relay/control-params.js), and UdpRelay checks the config it applies itself.
 * @template T @param {string} method @param {unknown} params @returns {T}
 */
function paramsObject(method, params) {
  if (params !== null && typeof params === 'object' && !Array.isArray(params)) return /** @type {T} */ (params);
  throw new HarnessError(`relay ${method}: params must be an object, got ${describeKind(params)}`);
}

/** @type {Record<string, (params: unknown) => unknown>} */
const methods = {
  // Without params, UdpRelay's defaults: nothing changes.
  configure: (params) => relay.configure(params === undefined ? undefined : paramsObject('configure', params)),
  restartTraces: (epochMs) => {
    if (typeof epochMs !== 'number') throw new HarnessError(`relay restartTraces: params must be a time in ms, got ${describeKind(epochMs)}`);
    return relay.restartTraces(epochMs);
  },
  register: (params) => relay.register(paramsObject('register', params)),
  registerTunnel: (params) => relay.registerTunnel(paramsObject('registerTunnel', params)),
  truth: () => relay.truth(),
  tunnelTruth: () => relay.tunnelTruth(),
  loadTruth: () => relay.loadTruth(),
  stats: () => ({ ...relay.stats(), priority }),
  close: () => relay.close(),
};

/** @param {object} message */
const reply = (message) => process.send?.(message);

process.on('message', async (/** @type {unknown} */ request) => {
  const id = fieldOf(request, 'id');
  const method = fieldOf(request, 'method');
  const params = fieldOf(request, 'params');
  try {
    if (typeof method !== 'string' || !Object.hasOwn(methods, method)) throw new Error(`unknown relay method "${method}"`);
    reply({ id, result: (await methods[method](params)) ?? null });
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    reply({ id, error: { name, message } });
  }
});

reply({ ready: true });
