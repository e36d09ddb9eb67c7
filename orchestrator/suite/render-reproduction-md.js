// The committed reproduction (docs/reproduction/README.md): every published table filled with the runs in
// runs.json, as markdown. Pure. Each cell: our median over the passed runs, the IQR, the paper's value and the
// deviation, as the suite's reproduction pages (render-reproduction.js) show them.
import { escapeMarkdown, formatDifference } from '../report/format.js';
import { REPRODUCTIONS, buildReproduction, columnKey, tableScenarios } from '../lib/scenario/reproductions.js';
import { commonMediaSource } from './reproduction-runs.js';
import { format, metricInfo, shown } from './render-reproduction.js';
import { HOST_RULE, gradeFigure, gradePhrase } from '../lib/scenario/reproductions/host-bound.js';
import { differencePhrase, unrecordedAudioNote } from '../lib/scenario/reproductions/run-kinds.js';

/** @typedef {import('./reproduction-runs.js').TableRun} TableRun */

// runs.json's text comes from results (and may be edited by hand): escapeMarkdown keeps it text on the page.

/** A markdown table cell: no pipes (but those escapeMarkdown escaped) or line breaks. @param {string} text */
const cell = (text) => text.replace(/(?<!\\)\|/g, '\\|').replaceAll('\n', ' ');

/** @param {string[]} values @returns {string} the distinct ones, in order, or '—' */
const distinct = (values) => [...new Set(values.filter(Boolean))].map(escapeMarkdown).join(', ') || '—';

/** Each value with how many runs had it: "relay (dgram) in 12 runs, relay (native) in 3". @param {string[]} values */
function counted(values) {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => `${escapeMarkdown(value)} in ${n} run${n === 1 ? '' : 's'}`).join(', ') || '—';
}

/**
 * How many runs each scenario has, most first: "5 runs for 1 scenario, 3 for 30, 1 for 12".
 * @param {TableRun[]} runs
 */
function runsPerScenario(runs) {
  const perScenario = new Map();
  for (const run of runs) perScenario.set(run.scenario, (perScenario.get(run.scenario) ?? 0) + 1);
  const scenarios = new Map();
  for (const n of perScenario.values()) scenarios.set(n, (scenarios.get(n) ?? 0) + 1);
  return [...scenarios].sort(([a], [b]) => b - a)
    .map(([n, count], i) => (i === 0 ? `${n} run${n === 1 ? '' : 's'} for ${count} scenario${count === 1 ? '' : 's'}` : `${n} for ${count}`))
    .join(', ') || 'none';
}

/**
 * @param {ReturnType<typeof buildReproduction>['rows'][number]['cells'][number]} c
 * @param {Map<string, number>} causeNumbers
 */
function renderCell(c, causeNumbers) {
  if (!c.ours) return `— · paper ${c.published === null ? 'n/a' : format(c.key, c.published)}`;
  const marks = c.causes.map((id) => causeNumbers.get(id)).join(',');
  const spread = c.key.startsWith('×') ? 'ratio of the medians' : c.ours.n > 1 ? `IQR ${format(c.key, c.ours.q1)}–${format(c.key, c.ours.q3)}` : '1 run';
  const paper = c.published === null ? 'paper n/a' : `paper ${format(c.key, c.published)}`;
  const deviation = c.deviation === null ? '' : ` · Δ ${formatDifference(shown(c.key, c.ours.median), shown(c.key, c.published))}`;
  return `**${format(c.key, c.ours.median)}**${marks ? `<sup>${marks}</sup>` : ''} (${spread}) · ${paper}${deviation}`;
}

/**
 * The row's heading: its runs, the figures marked host-limited, how far the host could have moved each graded figure
 * (lib/scenario/reproductions/host-bound.js; figures whose grades read alike in one clause), the runs whose relay
 * fell behind or, in older records without evidence, that the suite flagged CPU-limited, and how its runs differ in
 * emulator or audio loop (lib/scenario/reproductions/run-kinds.js).
 * @param {ReturnType<typeof buildReproduction>['rows'][number]} row
 * @param {TableRun[]} runs the row's runs
 * @param {import('../lib/scenario/reproductions.js').Reproduction} table
 */
function rowHeading(row, runs, table) {
  const cited = runs.map((run) => `${run.repetition}${run.status === 'passed' ? '' : ` (${escapeMarkdown(run.status)})`}`).join(', ');
  const passed = runs.filter((run) => run.status === 'passed');
  const grades = row.cells.flatMap((c, i) => {
    // A ratio of two rows' medians is not graded (HOST_RULE).
    const grade = c.key.startsWith('×') ? null : gradeFigure(c.path, c.ours, passed);
    return grade ? [{ grade, label: table.columns[i].heading }] : [];
  });
  const marked = grades.filter(({ grade }) => grade.hostLimited);
  /** @type {Map<string, string[]>} the figures by how their grade reads */
  const byPhrase = new Map();
  for (const { grade, label } of grades) byPhrase.set(gradePhrase(grade), [...(byPhrase.get(gradePhrase(grade)) ?? []), label]);
  const graded = [...byPhrase].map(([phrase, labels]) => `${labels.join(', ')}: ${phrase}`);
  const relay = runs.filter((r) => r.emulatorBehind).map(behindNote);
  const flagged = runs.filter((r) => r.hostLimited && !r.hostEvidence).map((r) => String(r.repetition));
  const differ = differencePhrase(runs);
  const notes = [
    ...graded,
    relay.length ? `relay fell behind: ${relay.join(', ')}` : '', flagged.length ? `suite's CPU flag (older records): ${flagged.join(', ')}` : '',
    differ ? `runs differ in ${escapeMarkdown(differ)}` : '',
  ].filter(Boolean);
  return `${row.label} \`${row.scenario}\` — runs ${cited || 'none yet'}: ${row.passedRuns}/${runs.length} passed`
    + (marked.length ? ` · **host-limited: ${marked.map(({ label }) => label).join(', ')}**` : '')
    + (notes.length ? ` · ${notes.join('; ')}` : '');
}

/**
 * A run whose relay fell behind, with how much: a single late datagram and a saturated minute read differently.
 * @param {TableRun} run
 */
function behindNote(run) {
  const behind = run.behindSeconds;
  // runs.json is a committed file: a hand-edited record renders as far as its numbers go.
  if (!behind || !Number.isFinite(behind.seconds) || !Number.isFinite(behind.measuredSeconds)) return String(run.repetition);
  const late = Number.isFinite(behind.lateMaxMs) ? `, latest ${formatMs(Number(behind.lateMaxMs))} ms` : '';
  const stalls = Number(behind.hostStallSeconds) > 0 ? `; the host did not run it in ${Number(behind.hostStallSeconds)}` : '';
  return `${run.repetition} (${behind.seconds} of ${behind.measuredSeconds} s${late}${stalls})`;
}

/**
 * A run's commit and whether its checkout had uncommitted changes; "unknown" for what an older record did not keep.
 * @param {TableRun} run
 */
function commitOf(run) {
  const commit = typeof run.commit === 'string' ? run.commit.slice(0, 12) : 'commit unknown';
  const tree = run.treeDirty === true ? 'with uncommitted changes' : run.treeDirty === false ? 'clean' : 'tree state unknown';
  return `${commit} (${tree})`;
}

/** @param {number} ms */
const formatMs = (ms) => (ms < 10 ? ms.toFixed(1) : String(Math.round(ms)));

/**
 * @param {import('../lib/scenario/reproductions.js').Reproduction} table
 * @param {TableRun[]} runs @param {Record<string, unknown>} references
 */
function renderTable(table, runs, references) {
  const mine = runs.filter((run) => tableScenarios(table).includes(run.scenario));
  const video = distinct(mine.map((run) => run.video ?? ''));
  const cpus = Math.max(0, ...mine.map((run) => run.cpus ?? 0)) || null;
  const environment = { video, cpus, mediaSource: commonMediaSource(mine) };
  const reproduction = buildReproduction(table, { runs: mine, references, environment });
  const causeNumbers = new Map(reproduction.causes.map((cause, index) => [cause.id, index + 1]));
  const heads = table.columns.map((column) => {
    const info = metricInfo(column.path);
    const unit = column.ratioToBaseline ? '×' : info.unit;
    return `${column.heading}${unit && !column.heading.includes('(') ? ` (${unit})` : ''} \`${columnKey(column)}\``;
  });
  const verdictHead = table.verdicts ? ['RFC 8868 verdict'] : [];
  const lines = [
    `## ${table.citation}: ${table.title}`, '', `\`reproduce ${table.id}\`${table.note ? ` · ${table.note}` : ''}`, '',
    `| Row | ${[...heads, ...verdictHead].map(cell).join(' | ')} |`,
    `|---|${[...heads, ...verdictHead].map(() => '---').join('|')}|`,
    ...reproduction.rows.map((row) => {
      const verdict = row.verdict ? [`${row.verdict.verdict} (expected: ${row.verdict.expected ?? 'see the scenario file'})`] : [];
      const cells = [...row.cells.map((c) => renderCell(c, causeNumbers)), ...verdict];
      return `| ${cell(rowHeading(row, mine.filter((run) => run.scenario === row.scenario), table))} | ${cells.map(cell).join(' | ')} |`;
    }),
    '',
    // Causes describe runs ("these runs sent …"): a table without any has no deviation to explain yet.
    ...(reproduction.causes.length && mine.length
      ? ['Known causes of deviation:', '', ...reproduction.causes.map((c, i) => `${i + 1}. ${c.text}`), ''] : []),
  ];
  return lines.join('\n');
}

/**
 * @param {{ runs: TableRun[], references: Record<string, unknown>, planned: number }} input
 *   planned: the runs the full reproduction has (reproduce --all's plan)
 * @returns {string} README.md
 */
export function renderReproductionMarkdown({ runs, references, planned }) {
  const dates = runs.map((run) => run.startedAt).filter(/** @returns {s is string} */ (s) => typeof s === 'string').sort();
  const commits = counted(runs.map(commitOf));
  const header = [
    '# Reproduction of the published tables, measured here', '',
    'Generated by `npm run reproduce -- --all --out <dir> --publish docs/reproduction` from the runs in',
    '[runs.json](runs.json) (one record per run: what the tables take from its result.json, and what it ran with).',
    'Do not edit by hand: a test re-derives every number below from runs.json. How the tables are built, and what',
    'each cause means: [docs/reproductions.md](../reproductions.md).', '',
    `- Runs: ${runs.length} of the ${planned} planned (${runsPerScenario(runs)}; at full length)`
      + `${runs.length < planned ? '; **in progress**: rows without runs show —' : ''}`,
    `- Dates: ${dates.length ? `${escapeMarkdown(dates[0].slice(0, 10))} to ${escapeMarkdown(dates[dates.length - 1].slice(0, 10))}` : '—'}`,
    `- Commits (the checkout each run was made from): ${commits}`,
    `- Browsers: ${distinct(runs.map((run) => run.browser ?? ''))}`,
    `- Network emulator (the relay's packet path): ${counted(runs.map((run) => run.emulator ?? 'not recorded'))}`,
    `- Audio (the fake microphone's loop): ${counted(runs.map((run) => run.audio ?? 'not recorded'))}`
      + `${unrecordedAudioNote(runs) ? ` (${unrecordedAudioNote(runs)})` : ''}`,
    `- Host: ${distinct(runs.map((run) => (run.cpus ? `${run.cpus} CPUs` : '')))}; video ${distinct(runs.map((run) => run.video ?? ''))}`,
    '', '**How far this host could have moved a figure** (derivation: [docs/reproductions.md](../reproductions.md)):', '',
    ...HOST_RULE.map((rule) => `- ${rule}`), '',
  ];
  return [...header, ...REPRODUCTIONS.map((table) => renderTable(table, runs, references))].join('\n');
}
