// The run report's set-up tables (pure HTML): where each peer's set-up time went, milestone by milestone
// (result.setup, lib/result/setup-breakdown.js), and each connection's set-up phases beside the path ICE selected
// first, so a call over TURN/TCP or ICE-TCP shows what the path cost. Every value comes from result.json and is
// escaped; malformed entries are dropped.
import { isRecord } from '../lib/input/validate.js';
import { setupByPath } from '../lib/result/setup-breakdown.js';
import { escapeHtml, formatNumber } from './format.js';

const MILESTONE_LABELS = {
  browserLaunched: 'Browser started', pageLoaded: 'Page loaded', joined: 'Joined signaling', mediaReady: 'getUserMedia resolved',
  negotiated: 'Offer/answer done', iceConnected: 'ICE connected', dtlsConnected: 'DTLS connected', firstRtp: 'First RTP',
  firstFrame: 'First decoded frame',
};

/**
 * Where each peer's set-up time went: ms since its browser launch at every milestone (result.setup).
 * @param {{ milestones?: string[], peers?: Record<string, { sinceLaunchMs?: Record<string, number|null> }> }|undefined} setup
 */
export function renderSetupTable(setup) {
  const peers = Object.keys(setup?.peers ?? {}).sort();
  if (!setup?.milestones?.length || peers.length === 0) return '';
  /** @type {Record<string, string>} */
  const labels = MILESTONE_LABELS;
  const rows = setup.milestones.map((name) => `<tr data-milestone="${escapeHtml(name)}"><th scope="row">${escapeHtml(labels[name] ?? name)}</th>`
    + `${peers.map((peer) => `<td>${formatNumber(setup.peers?.[peer].sinceLaunchMs?.[name] ?? null, 0)}</td>`).join('')}</tr>`);
  return `<table class="summary setup"><thead><tr><th scope="col">Set-up milestone <span class="unit">(ms since the peer's browser launch)</span></th>`
    + `${peers.map((peer) => `<th scope="col">${escapeHtml(peer)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="caption">Milestones overlap: negotiation, ICE and DTLS run while getUserMedia is pending. Per-remote milestones count the first remote.</p>`;
}

const MILESTONE_KEYS = ['negotiated', 'iceConnected', 'dtlsConnected', 'firstRtp', 'firstFrame'];
/** @param {unknown} value @returns {number|null} */
const msOrNull = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * result.setup's per-remote milestones and result.paths' connections as read, narrowed to what setupByPath takes.
 * @param {unknown} result
 */
function setupAndConnections(result) {
  const setup = isRecord(result) && isRecord(result.setup) && isRecord(result.setup.peers) ? result.setup.peers : {};
  /** @type {Record<string, import('../lib/result/setup-breakdown.js').PeerSetup>} */
  const peers = {};
  for (const [peer, value] of Object.entries(setup)) {
    const remotes = isRecord(value) && isRecord(value.remotes) ? value.remotes : {};
    const milestones = Object.entries(remotes).flatMap(([remote, m]) => (isRecord(m)
      ? [[remote, Object.fromEntries(MILESTONE_KEYS.map((key) => [key, msOrNull(m[key])]))]] : []));
    peers[peer] = { launchEpochMs: null, sinceLaunchMs: {}, remotes: Object.fromEntries(milestones) };
  }
  const paths = isRecord(result) && isRecord(result.paths) && Array.isArray(result.paths.connections) ? result.paths.connections : [];
  const connections = paths.filter(isRecord).flatMap((c) => (typeof c.peer === 'string' && typeof c.remote === 'string' && Array.isArray(c.paths)
    ? [{ peer: c.peer, remote: c.remote, paths: c.paths.filter(isRecord).flatMap((p) => (typeof p.label === 'string' && typeof p.firstT === 'number'
      ? [{ label: p.label, firstT: p.firstT }] : [])) }] : []));
  return { setup: { peers }, connections };
}

/**
 * Each connection's set-up phases on the path it took first, or '' without paths (a result from before them).
 * @param {unknown} result  result.json as read
 */
export function renderSetupByPath(result) {
  const { setup, connections } = setupAndConnections(result);
  const rows = setupByPath(setup, connections).map((s) => `<tr data-peer="${escapeHtml(s.peer)}" data-remote="${escapeHtml(s.remote)}">`
    + `<th scope="row">${escapeHtml(s.peer)} ← ${escapeHtml(s.remote)}</th><td>${escapeHtml(s.path)}</td>`
    + [s.negotiatedMs, s.iceMs, s.dtlsMs, s.firstFrameMs, s.totalMs].map((ms) => `<td>${formatNumber(ms, 0)}</td>`).join('') + '</tr>');
  if (!rows.length) return '';
  const head = ['Connection', 'Path (selected first)', 'Offer/answer done', 'ICE', 'DTLS', 'To first frame', 'First frame'];
  return `<h3>Set-up by path</h3><div class="scroll"><table class="summary compact setup-paths"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>
<p class="caption">ms. Offer/answer done and first frame: since the receiving peer's browser launch; ICE: offer/answer done → ICE connected; DTLS: → DTLS connected; to first frame: → first decoded frame. A relayed path adds its TURN allocation and the round trips through the server to ICE, a TCP or TLS one its handshakes.</p>`;
}
