// The peers' network profiles (lib/network/nat-profile.js) on a netem topology: each profiled peer's NAT and firewall
// built by nftables in its own namespace, after the topology. They go with the namespace (cleanup, guardian).
import { profileCommands } from '../../lib/network/nat-profile.js';
import { HarnessError } from '../../lib/system/errors.js';

/**
 * @param {import('./topology.js').TopologyPlan} plan
 * @param {import('../../lib/network/nat-profile.js').PeerNetworks} profiles
 * @returns {string[][]}
 */
export function profileSetupCommands(plan, profiles) {
  return Object.entries(profiles).flatMap(([name, profile]) => {
    const peer = plan.peers.find((p) => p.name === name);
    if (!peer) throw new HarnessError(`netem: peerNetwork names ${name}, which this run has no namespace for (${plan.peers.map((p) => p.name).join(', ')})`);
    return profileCommands(profile, { ...peer, controlAddress: plan.control.rootAddress });
  });
}
