// The schedule's handovers (lib/network/handover.js) on the media clock: at each, the emulator moves the peer to a new
// address and kills its old path (Emulator.handover); the pages find out as an app does, from ICE (client-app/ice-restart.js).
// Each is an orchestrator event, `handover`, with the addresses: result.json's handovers (lib/result/handover.js) read them.
import { errorMessage } from '../lib/system/errors.js';

/**
 * Arms a timer per handover; returns them for tear-down. A backend without `handover` never gets here: the scenario
 * was refused at load (emulators/contract.js supports.handover).
 * @param {import('./call-state.js').LiveCall} call @param {number} mediaStartEpochMs
 * @returns {ReturnType<typeof setTimeout>[]}
 */
export function scheduleHandovers(call, mediaStartEpochMs) {
  const { scenario, recorder, emulator } = call;
  return (scenario.compiled.handovers ?? []).map(({ atS, peer, cause }) => setTimeout(async () => {
    if (recorder.signal.aborted) return;
    try {
      if (!emulator.handover) throw new Error(`the ${emulator.name} emulator cannot move a peer to a new network`);
      const { fromAddress, toAddress } = await emulator.handover(peer);
      recorder.event({ type: 'handover', peer, fromAddress, toAddress, scheduledAtS: atS, cause });
    } catch (error) {
      recorder.fail(`the handover of ${peer} at ${atS} s: ${errorMessage(error)}`, peer);
    }
  }, mediaStartEpochMs + atS * 1000 - Date.now()));
}
