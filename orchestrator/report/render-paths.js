// The run report's "Network path" section (pure HTML): each connection's selected ICE candidate pairs and the seconds
// each was in use (lib/result/ice-paths.js), so "this call ran over TURN/TLS" is read off the browsers' getStats; and
// with a TURN server, the turnPath checks; with peer network profiles (NAT, firewall), each peer's and the networkPath
// checks; with handovers, each one's outage and pairs (render-handovers.js). Every value comes from result.json and is
// escaped; malformed rows are dropped.
import { isRecord } from '../lib/input/validate.js';
import { recordsOf, statusBadge, textCell as cell } from './format.js';
import { renderHandovers } from './render-handovers.js';


/**
 * The section, or '' when the result has no paths (written before they were recorded).
 * @param {unknown} result  result.json as read
 */
export function renderIcePaths(result) {
  const paths = isRecord(result) ? result.paths : undefined;
  if (!isRecord(paths)) return '';
  const rows = recordsOf(paths.connections).flatMap((connection) => recordsOf(connection.paths).map((p) => `<tr data-peer="${cell(connection.peer)}" data-remote="${cell(connection.remote)}">`
    + `<th scope="row">${cell(connection.peer)} → ${cell(connection.remote)}</th><td>${cell(p.localType)}/${cell(p.localProtocol)}</td>`
    + `<td>${cell(p.relayProtocol)}</td><td>${cell(p.remoteType)}/${cell(p.remoteProtocol)}</td><td>${cell(p.seconds)}</td><td>${cell(p.firstT)}–${cell(p.lastT)}</td></tr>`));
  const checks = recordsOf(paths.checks).map((c) => `<tr data-check="${cell(c.check)}"><th scope="row">${cell(c.check)}</th><td>${cell(c.peer)} → ${cell(c.remote)}</td>`
    + `<td>${statusBadge(c.passed === true ? 'passed' : 'failed')}</td><td class="what">${cell(c.detail)}</td></tr>`);
  const table = rows.length
    ? `<div class="scroll"><table class="summary compact ice-paths"><thead><tr><th scope="col">Connection</th><th scope="col">Local candidate</th><th scope="col">To its TURN server over</th><th scope="col">Remote candidate</th><th scope="col">Seconds</th><th scope="col">From–to (s)</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`
    : '<p class="empty">No page reported a selected candidate pair.</p>';
  const checkTable = checks.length
    ? `<h3>Path checks</h3><div class="scroll"><table class="summary path-checks"><thead><tr><th scope="col">Check</th><th scope="col">Connection</th><th scope="col">Passed</th><th scope="col">Detail</th></tr></thead><tbody>${checks.join('')}</tbody></table></div>
<p class="caption"><b>turnPath</b>: every second with a selected pair was relayed at this end, over the scenario's TURN transport; <b>networkPath</b>: every second's pair is one the two ends' NATs and firewalls allow; recorded, not the run's status.</p>`
    : '';
  const profiles = Object.entries(isRecord(paths.profiles) ? paths.profiles : {}).flatMap(([peer, p]) => (isRecord(p)
    ? [`<tr data-peer="${cell(peer)}"><th scope="row">${cell(peer)}</th><td>${cell(p.nat)}</td><td>${cell(p.firewall)}</td></tr>`] : []));
  const profileTable = profiles.length
    ? `<h3>Peer networks</h3><div class="scroll"><table class="summary compact peer-networks"><thead><tr><th scope="col">Peer</th><th scope="col">NAT</th><th scope="col">Firewall</th></tr></thead><tbody>${profiles.join('')}</tbody></table></div>`
    : '';
  return `<section class="block" id="network-path"><h2>Network path</h2>
<p>The candidate pair each page's ICE selected (getStats), per connection: <i>relay</i> is a TURN server's relayed address, reached over UDP, TCP or TLS.</p>${profileTable}${table}${checkTable}${renderHandovers(result)}</section>`;
}
