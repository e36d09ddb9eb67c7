// The SFUs, each in its own folder and each implementing the contract in contract.js. Commands and the run reach an
// SFU only through this registry, by what it declares; nothing here or outside compares an SFU's name.
import { udpBlockedPeers } from '../lib/network/nat-profile.js';
import { InputError } from '../lib/system/errors.js';
import { janusSfu } from './janus/index.js';
import { livekitSfu } from './livekit/index.js';

// How the SFUs run as processes the run owns; the run's TURN server (run/turn-server.js) runs the same way.
export { freePort, logTail, ownedArgv, spawnOwned } from './owned-process.js';
// The load participants of an SFU room (issue 41), for any SFU that declares loadParticipants.
export { startLoadParticipants } from './load-participants.js';

/** @typedef {import('./contract.js').SfuBackend} SfuBackend */

/**
 * The SFUs, one line each: `--sfu` lists them in this order, the first is the default.
 * @type {SfuBackend[]}
 */
export const SFUS = [janusSfu, livekitSfu];

/** The SFU a run uses when none is named. @returns {string} */
export const defaultSfu = () => SFUS[0].name;

/** What `--sfu` takes, read from the registry when asked. @returns {string[]} */
export const sfuNames = () => SFUS.map((sfu) => sfu.name);

/**
 * @param {string} name
 * @param {string} [where]  what named it, for the message (`--sfu`, or a suite file's field)
 * @returns {SfuBackend}
 */
export function sfuNamed(name, where = '--sfu') {
  const sfu = SFUS.find((candidate) => candidate.name === name);
  if (!sfu) throw new InputError(`${where} ${name}: unknown SFU; use one of ${sfuNames().join(', ')}`);
  return sfu;
}

/**
 * Stops a run before anything starts (exit 2) when its SFU is unknown or does not forward what a peer publishes
 * (simulcast, SVC: lib/media/publish.js), by what the SFU declares. Only an SFU call asks anything of it.
 * @param {string} name
 * @param {{ topology: string, file?: string, publish?: Record<string, import('../lib/media/publish.js').Publish>,
 *   load?: import('../lib/media/load-participants.js').LoadRequest|null,
 *   peerNetwork?: import('../lib/network/nat-profile.js').PeerNetworks }} scenario
 * @param {string} [where]  what named the SFU, for the message
 */
export function checkSfuSupport(name, scenario, where = '--sfu') {
  const sfu = sfuNamed(name, where);
  if (scenario.topology !== 'sfu') return;
  if (scenario.load && !sfu.capabilities.loadParticipants) {
    const alternative = SFUS.filter((other) => other.capabilities.loadParticipants).map((other) => `--sfu ${other.name}`).join(' or ');
    throw new InputError(`${scenario.file ?? 'the scenario'}: load: ${where} ${name} takes no load participants; drop load${alternative ? ` or use ${alternative}` : ''}`);
  }
  checkIceTcp(sfu, scenario, where);
  const { simulcastCodecs, svcCodecs, svcModes } = sfu.capabilities;
  /** @param {(s: SfuBackend) => boolean} has */
  const others = (has) => SFUS.filter((other) => other !== sfu && has(other)).map((other) => `--sfu ${other.name}`).join(' or ');
  for (const [peer, publish] of Object.entries(scenario.publish ?? {})) {
    const asked = `${scenario.file ?? 'the scenario'}: publish.${peer}`;
    const { name: codec, scalabilityMode } = publish.codec;
    if (publish.kind === 'simulcast' && !simulcastCodecs.includes(codec)) {
      const alternative = others((s) => s.capabilities.simulcastCodecs.includes(codec));
      throw new InputError(`${asked}: ${where} ${name} forwards simulcast of ${simulcastCodecs.join(', ') || 'no codec'}, not ${codec}; `
        + `publish ${simulcastCodecs[0] ?? 'one encoding'}${alternative ? ` or use ${alternative}` : ''}`);
    }
    if (publish.kind === 'svc' && !(svcCodecs.includes(codec) && svcModes.includes(scalabilityMode ?? ''))) {
      const alternative = others((s) => s.capabilities.svcCodecs.includes(codec) && s.capabilities.svcModes.includes(scalabilityMode ?? ''));
      throw new InputError(`${asked}: ${where} ${name} forwards SVC of ${svcCodecs.join(', ') || 'no codec'} in modes ${svcModes.join(', ') || 'none'}, `
        + `not ${codec} ${scalabilityMode}; choose one of those${alternative ? ` or use ${alternative}` : ''}`);
    }
  }
}

/**
 * A peer without UDP (peerNetwork udp-blocked) reaches an SFU only over ICE-TCP: the SFU must declare it.
 * @param {SfuBackend} sfu @param {Parameters<typeof checkSfuSupport>[1]} scenario @param {string} where
 */
function checkIceTcp(sfu, scenario, where) {
  const [peer] = udpBlockedPeers(scenario.peerNetwork ?? {});
  if (peer === undefined || sfu.capabilities.iceTcp) return;
  const alternative = SFUS.filter((other) => other.capabilities.iceTcp).map((other) => `--sfu ${other.name}`).join(' or ');
  throw new InputError(`${scenario.file ?? 'the scenario'}: peerNetwork.${peer}.firewall: udp-blocked leaves ${peer} only ICE over TCP, `
    + `and ${where} ${sfu.name} offers none (capabilities.iceTcp); ${alternative ? `use ${alternative} or ` : ''}remove the firewall`);
}
