// The dummynet backend as the emulator contract (../contract.js) sees it: pipes on macOS (dnctl + pf) or FreeBSD (ipfw),
// peers told apart by their loopback ports (runtime.js); elsewhere it exports scripts only (`export-script`).
import { createSteppedEmulator } from '../kernel-backend.js';
import { createDummynetEmulator, dummynetCapabilities } from './index.js';
import { exportDummynetScript } from './script.js';

/** @type {import('../contract.js').EmulatorBackend} */
export const dummynetBackend = {
  name: 'dummynet',
  summary: 'dummynet pipes: macOS (dnctl + pf) or FreeBSD (ipfw), root only; traces as rate steps',
  supports: {
    sfu: false, directSfu: false, kernelFlows: false, firefox: false, traceReplay: false, turn: false, peerNetwork: false, handover: false,
    loadParticipantLinks: false,
  },
  why: {
    firefox: 'which gathers no ICE candidate on 127.0.0.1, where dummynet tells the peers apart',
    sfu: 'which dummynet cannot shape (it steers media by the port of loopback candidates, and Janus gathers none on loopback)',
    kernelFlows: "which crosses the emulated bottleneck through the relay's tunnels only",
    directSfu: 'which dummynet steers only by the ports of the candidates the harness carries',
    turn: 'which would need a TURN server between the peers, where dummynet shapes loopback ports only',
    peerNetwork: 'which shapes loopback ports only: a NAT or firewall needs each peer in a network of its own',
    handover: 'which shapes loopback ports only: a handover needs each peer on an address of its own',
    loadParticipantLinks: 'which carries no SFU, so no load participant',
  },
  async unavailable() {
    const caps = await dummynetCapabilities();
    return caps.available ? null : caps.reasons.join('; ');
  },
  create: (options) => createSteppedEmulator(createDummynetEmulator, options),
  exportScript: exportDummynetScript,
};
