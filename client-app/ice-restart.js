// What an app does when its network path dies (a phone leaving Wi-Fi, the emulator's handover): on ICE `disconnected`
// or `failed` the connection's offerer restarts ICE and renegotiates through the signaling server, so both ends gather
// again and ICE picks a new pair. The page reacts to ICE itself rather than to a notice from the harness: ICE consent
// (RFC 7675) is what every browser app sees, whatever its OS tells it about networks.

/** Connections whose restart is under way: a `disconnected` repeated before it ends starts no second one. */
const restarting = new WeakSet();

/**
 * Reports every ICE state change (the `ice-state` event) and, unless told not to, restarts ICE on a lost path.
 * @param {string} remote @param {RTCPeerConnection} pc
 * @param {{ report: (type: string, data: object) => void, renegotiate: (remote: string, pc: RTCPeerConnection) => Promise<void>,
 *   reportError: (message: unknown) => void, restart: boolean }} hooks  restart: false on a connection to an SFU
 */
export function watchIce(remote, pc, hooks) {
  pc.oniceconnectionstatechange = () => {
    hooks.report('ice-state', { remote, state: pc.iceConnectionState });
    if (hooks.restart) restartOnPathLoss(remote, pc, hooks);
  };
}

/**
 * Called on every iceconnectionstatechange. Only the side whose last description was the offer restarts (in a stable
 * connection exactly one end is), so the two ends never offer at once.
 * @param {string} remote @param {RTCPeerConnection} pc
 * @param {{ report: (type: string, data: object) => void, renegotiate: (remote: string, pc: RTCPeerConnection) => Promise<void>,
 *   reportError: (message: unknown) => void }} hooks
 */
function restartOnPathLoss(remote, pc, { report, renegotiate, reportError }) {
  const state = pc.iceConnectionState;
  if (state === 'connected' || state === 'completed') {
    restarting.delete(pc);
    return;
  }
  if (state !== 'disconnected' && state !== 'failed') return;
  if (pc.signalingState !== 'stable' || pc.currentLocalDescription?.type !== 'offer') return;
  if (state === 'disconnected' && restarting.has(pc)) return;
  restarting.add(pc);
  pc.restartIce();
  report('ice-restart', { remote, state });
  renegotiate(remote, pc).catch(reportError);
}
