// docs/catalog.md from the loaded scenarios (pure): per scenario its parameters as the file sets them and the published
// result it is compared against, with the source cited in full, so the repository documents its catalogue itself.
// Written by `webrtc-testbed catalog`; test/unit/catalog.test.js fails when the committed file is stale.
import { LINK_FIELD_SPECS, linkFieldSpec } from '../lib/network/link-model.js';
import { metricByPath } from '../lib/result/metric-catalogue.js';
import { describeLoadSubscription } from '../lib/media/load-participants.js';

/** The papers the scenario files cite by abbreviation (a reference's `source` starts with one). */
export const SOURCES = [
  { abbr: 'J16', citation: 'B. A. Jansen, *Performance Analysis of WebRTC-based Video Conferencing*, MSc thesis, Delft University of Technology, 2016 (chapters 7–8)' },
  { abbr: 'J18', citation: 'B. Jansen, T. Goodwin, V. Gupta, F. Kuipers, G. Zussman, *Performance Evaluation of WebRTC-based Video Conferencing*, 2018' },
  { abbr: 'F', citation: 'H. Fang, *Network Performance Analysis of WebRTC*, University of Colorado Boulder (RRTCC-era Chrome)' },
  { abbr: 'I22', citation: 'S. Islam, M. Welzl, K. Fladby, *Coupled Congestion Control for WebRTC Media and Data Flows*, IEEE Access, 2022' },
  { abbr: 'KITE', citation: 'CoSMo Software, *KITE (Karoshi Interoperability Testing Engine)*, its simulcast test, github.com/webrtc/KITE' },
  { abbr: 'RFC 8867', citation: 'Z. Sarker, V. Singh, X. Zhu, M. Ramalho, *Test Cases for Evaluating Congestion Control for Interactive Real-Time Media*, RFC 8867, IETF, 2021' },
];
const NO_SOURCE = 'Without a published result';

/** @param {string} abbr @param {string} text */
const cites = (abbr, text) => new RegExp(`(^|[\\s(])${abbr}( §|,| \\(|$)`).test(text);

/** @param {{reference: {source: string}|null}} scenario @returns {string} the abbreviation its source starts with, or NO_SOURCE */
function paperOf(scenario) {
  const source = scenario.reference?.source ?? '';
  return SOURCES.find(({ abbr }) => source.startsWith(`${abbr} `))?.abbr ?? NO_SOURCE;
}

/** @param {number} s @returns {string} m:ss, or h:mm:ss */
function clock(s) {
  const whole = Math.round(s * 1000) / 1000;
  const minutes = Math.floor(whole / 60);
  const seconds = whole - minutes * 60;
  const ss = `${seconds < 10 ? '0' : ''}${seconds}`;
  return minutes < 60 ? `${minutes}:${ss}` : `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}:${ss}`;
}

/** The link fields in the order a sentence lists them: a setting's parts together (the rate or trace, then the queue). */
const SENTENCE_ORDER = [...LINK_FIELD_SPECS].sort((a, b) => firstOfSetting(a) - firstOfSetting(b));

/** @param {import('../lib/network/link-model.js').LinkField} spec @returns {number} where its setting's first field stands */
function firstOfSetting(spec) {
  return LINK_FIELD_SPECS.findIndex((other) => (other.part ?? other.field) === (spec.part ?? spec.field));
}

/** @param {Record<string, unknown>} params a link as written (or a step's `set`) @returns {string} */
function linkText(params) {
  const parts = SENTENCE_ORDER.filter(({ field }) => params[field] !== undefined).map(({ field, text }) => text(params[field]));
  return parts.length ? parts.join(', ') : 'unconstrained';
}

/** @param {unknown} links a schedule entry's `links` @returns {string} */
const targets = (links) => (Array.isArray(links) ? links.map((l) => `\`${l}\``).join(', ') : String(links ?? 'uplinks'));

/**
 * @typedef {{ at: number, links?: unknown, set?: Record<string, unknown>, handover?: string, ramp: { field: string, from: number,
 *   to: number, durationS: number, shape?: string, everyS?: number } }} ScheduleEntry  as written (docs/scenario-format.md),
 *   checked by loadScenario
 */

/** @param {ScheduleEntry} entry a schedule entry as written @returns {string} */
function scheduleLine(entry) {
  if (entry.set) return `${clock(entry.at)} ${targets(entry.links)}: ${linkText(entry.set)}`;
  if (entry.handover) return `${clock(entry.at)} handover: \`${entry.handover}\` moves to a new address, its old path dead`;
  const { field, from, to, durationS, shape = 'linear', everyS = 0.5 } = entry.ramp;
  const unit = linkFieldSpec(field)?.rampUnit ?? field;
  return `${clock(entry.at)}–${clock(entry.at + durationS)} ${targets(entry.links)}: ${from} → ${to} ${unit}, ${shape}, re-set every ${everyS} s`;
}

/**
 * @param {{ link?: Record<string, unknown>, peers?: Record<string, Record<string, Record<string, unknown>>>,
 *   bottleneck?: Record<string, unknown>, bottleneckBack?: Record<string, unknown> }} network as written
 * @returns {string[]} one line per link the file sets
 */
function networkLines(network) {
  const lines = [];
  if (network.link) lines.push(`every uplink: ${linkText(network.link)}`);
  for (const [peer, sides] of Object.entries(network.peers ?? {})) {
    for (const [side, params] of Object.entries(sides)) lines.push(`${peer} ${side}: ${linkText(params)}`);
  }
  if (network.bottleneck) lines.push(`bottleneck (both directions): ${linkText(network.bottleneck)}`);
  if (network.bottleneckBack) lines.push(`bottleneck right → left: ${linkText(network.bottleneckBack)}`);
  return lines.length ? lines : ['unconstrained'];
}

/** @param {import('../lib/cross/flows.js').Flow} flow normalised @returns {string} */
function flowLine(flow) {
  const span = `${clock(flow.startS)}–${clock(flow.stopS)}`;
  /** @type {Record<string, () => string[]>} */
  const byKind = {
    call: () => [flow.direction === 'forward' ? 'one-way' : 'two-way', ...(flow.pauses ?? []).map((p) => `paused ${clock(p.atS)}–${clock(p.atS + p.durationS)}`)],
    tcp: () => [`iperf3 TCP ${flow.direction}`],
    'tcp-short': () => [`short TCP transfers ${flow.direction}, at most ${flow.count}, idle mean ${flow.idleMeanS} s, ${flow.minBytes}–${flow.maxBytes} bytes, seed ${flow.seed}`],
    udp: () => [`iperf3 UDP ${flow.direction} at ${flow.rateKbps} kbps`],
    data: () => [`RTCDataChannel bulk transfer ${flow.from} → ${flow.to}`],
  };
  const details = byKind[flow.kind]?.() ?? [];
  return `\`${flow.name}\` (${flow.kind}) ${span}: ${details.join(', ')}`;
}

/**
 * @param {Record<string, { width?: number|null, height?: number|null, fps?: number|null, cpuQuotaCores?: number|null,
 *   cpuCount?: number|null, cpuThrottlingRate?: number }>} devices @returns {string}
 */
function devicesText(devices) {
  return Object.entries(devices).map(([peer, d]) => {
    const parts = [
      d.width != null ? `capture at most ${d.width}×${d.height}` : null,
      d.fps != null ? `${d.fps} fps` : null,
      d.cpuQuotaCores != null ? `${d.cpuQuotaCores} of a core` : null,
      d.cpuCount != null ? `${d.cpuCount} cores` : null,
      (d.cpuThrottlingRate ?? 0) > 1 ? `CPU throttled ${d.cpuThrottlingRate}×` : null,
    ].filter(Boolean);
    return `${peer}: ${parts.join(', ')}`;
  }).join('; ');
}

/**
 * @param {{ name: string, profile?: string|null, scalabilityMode?: string|null }} codec normalised (lib/media/codec.js)
 * @returns {string}
 */
const codecText = (codec) => [codec.name, codec.profile && `profile ${codec.profile}`, codec.scalabilityMode].filter(Boolean).join(', ');

/** @param {Record<string, string>} perPeer @returns {string} */
const perPeerText = (perPeer) => Object.entries(perPeer).map(([peer, value]) => `${peer}: ${value}`).join('; ');

/**
 * @typedef {import('../lib/scenario/scenario-file.js').ResolvedScenario} Scenario
 */

/** One peer's simulcast or SVC publishing (lib/media/publish.js). @param {import('../lib/media/publish.js').Publish} p */
function publishText(p) {
  const inactive = p.sendEncodings.filter((encoding) => encoding.active === false).map((encoding) => encoding.rid);
  const mode = p.codec.scalabilityMode ? ` ${p.codec.scalabilityMode}` : '';
  return p.kind === 'svc' ? `SVC ${p.codec.name}${mode}`
    : `simulcast ${p.spatialLayers} (${p.codec.name}${mode})${inactive.length ? `, rid ${inactive.join(', ')} inactive` : ''}`;
}

/** @param {Scenario} s a loaded scenario @returns {string[]} markdown list items */
function parameterLines(s) {
  // The network as written, checked by loadScenario (lib/scenario/scenario-file.js).
  const network = /** @type {Parameters<typeof networkLines>[0] & { schedule?: ScheduleEntry[] }} */ (s.network);
  const mainCall = [
    s.mainCall.direction === 'forward' ? 'one-way (p0 sends, p1 only RTCP)' : null,
    s.mainCall.startS > 0 ? `media from ${clock(s.mainCall.startS)}` : null,
  ].filter(Boolean);
  const topology = s.topology === 'sfu' ? 'through an SFU (Janus VideoRoom)' : 'full mesh';
  const lines = [
    ...(s.group ? [`**Group**: \`${s.group}\` (\`npm run scenario ${s.group}\` runs every member)`] : []),
    `**Duration**: ${s.nominalDurationS} s (${clock(s.nominalDurationS)}), measured after a ${s.warmupS} s warm-up`,
    `**Peers**: ${s.peers}, ${topology}${s.allPeers > s.peers ? ` (${s.allPeers} with the extra calls' peers)` : ''}`,
    ...(s.load ? [`**Load participants**: ${s.load.participants} beside the browsers, subscribing to ${describeLoadSubscription(s.load)} `
      + '(Pion, pre-encoded simulcast; their links shaped as a peer\'s where the emulator and the SFU can)'] : []),
    ...networkLines(network).map((line) => `**Network**: ${line}`),
  ];
  const schedule = network.schedule ?? [];
  if (schedule.length) lines.push(`**Schedule** (media clock):\n${schedule.map((e) => `  - ${scheduleLine(e)}`).join('\n')}`);
  if (mainCall.length) lines.push(`**Main call**: ${mainCall.join(', ')}`);
  if (s.flows.length) lines.push(`**Flows**:\n${s.flows.map((f) => `  - ${flowLine(f)}`).join('\n')}`);
  if (s.codec) lines.push(`**Codec**: ${codecText(s.codec)} on every connection`);
  if (Object.keys(s.devices).length) lines.push(`**Devices**: ${devicesText(s.devices)}`);
  if (Object.keys(s.browsers).length) lines.push(`**Browsers**: ${perPeerText(s.browsers)} (the others run the run's --browser)`);
  if (Object.keys(s.media).length) lines.push(`**Media**: ${perPeerText(s.media)} (the others send the run's --video)`);
  if (s.screenShare) lines.push(`**Screen share**: ${s.screenShare.peers.join(', ')} also send generated slides (contentHint "detail") beside the camera`);
  const publish = Object.entries(s.publish ?? {}).map(([peer, p]) => `${peer}: ${publishText(p)}`);
  if (publish.length) lines.push(`**Publishing**: ${publish.join('; ')}${publish.length < s.peers ? ' (the others one encoding)' : ''}`);
  return lines;
}

/** @param {string} path @param {{mean: number, sd: number|null, byChangeAtS?: Record<string, number>}} value */
function referenceRow(path, value) {
  const metric = metricByPath(path);
  const scale = metric?.scale ?? 1;
  /** @param {number|null|undefined} v */
  const shown = (v) => (v === null || v === undefined ? '—' : String(Math.round(v * scale * 1e6) / 1e6));
  const changes = Object.entries(value.byChangeAtS ?? {}).map(([atS, v]) => `${shown(v)} after the change at ${clock(Number(atS))}`);
  const unit = metric?.unit ? ` (${metric.unit})` : '';
  return `| ${metric?.label ?? path}${unit} | \`${path}\` | ${shown(value.mean)}${changes.length ? ` (${changes.join('; ')})` : ''} | ${shown(value.sd)} |`;
}

/** @param {Scenario} s a loaded scenario @returns {string} */
function referenceBlock(s) {
  const ref = s.reference;
  if (!ref) return '**Published result**: none; the scenario has no reference.';
  const cited = SOURCES.filter(({ abbr }) => cites(abbr, ref.source)).map(({ abbr }) => abbr);
  const head = `**Published result**: ${ref.source}${cited.length ? ` (${cited.join(', ')}: see [Sources](#sources))` : ''}.`;
  const rows = Object.entries(ref.metrics).map(([path, value]) => referenceRow(path, value));
  const table = rows.length ? `\n\n| metric | path | mean | sd |\n|---|---|---|---|\n${rows.join('\n')}` : '';
  return `${head}${table}${ref.notes ? `\n\n${ref.notes}` : ''}`;
}

/** @param {Scenario} s @returns {string} */
function scenarioSection(s) {
  return `### \`${s.name}\`\n\n${s.description}\n\n${parameterLines(s).map((l) => `- ${l}`).join('\n')}\n\n${referenceBlock(s)}\n`;
}

/** @param {string} text @returns {string} a GitHub heading anchor */
const anchor = (text) => text.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');

/**
 * The catalogue as markdown: an index, one section per paper with its scenarios by source section, and the sources.
 * @param {Scenario[]} scenarios loaded (lib/scenario/scenario-file.js loadScenario), any order
 * @returns {string}
 */
export function renderCatalog(scenarios) {
  const families = [...SOURCES.map(({ abbr }) => abbr), NO_SOURCE]
    .map((paper) => ({
      paper,
      members: scenarios.filter((s) => paperOf(s) === paper)
        .sort((a, b) => (a.reference?.source ?? '').localeCompare(b.reference?.source ?? '', 'en', { numeric: true })
          || a.name.localeCompare(b.name, 'en', { numeric: true })),
    }))
    .filter(({ members }) => members.length);
  /** @param {string} paper */
  const intro = (paper) => {
    const source = SOURCES.find((x) => x.abbr === paper);
    return source ? `${source.citation}.\n\n` : '';
  };
  const index = families.flatMap(({ paper, members }) => members.map((s) => `| [\`${s.name}\`](#${anchor(s.name)}) | ${s.group ? `\`${s.group}\`` : ''} | ${paper} | ${s.reference?.source ?? '—'} | ${Object.keys(s.reference?.metrics ?? {}).length} |`));
  const sections = families.map(({ paper, members }) => `## ${paper}\n\n${intro(paper)}${members.map(scenarioSection).join('\n')}`);
  const sources = SOURCES.map(({ abbr, citation }) => `- **${abbr}**: ${citation}.`);
  return `<!-- Generated by \`npm run catalog\` from orchestrator/scenarios/*.json; edit the scenario files, not this file. -->
# Scenario catalog

Every built-in scenario (orchestrator/scenarios/), with the parameters its file sets and the published result it is
compared against. Times are on the media clock (m:ss); links and fields as in [scenario-format.md](scenario-format.md).
Unless a scenario says otherwise there are two peers, a full mesh, and conditions on every uplink (so both directions).

| scenario | group | paper | source | published figures |
|---|---|---|---|---|
${index.join('\n')}

${sections.join('\n')}
## Sources

${sources.join('\n')}
`;
}
