// Scenario groups: one catalogue entry with several combinations (F §4.3's `queue-size` is six cap × queue
// files, each naming `"group": "queue-size"`). `scenario <group>` runs every member, `list` shows the groups, and a
// suite's `scenarios` may name one. A name typed on the command line must mean one thing, so a group may not share a
// scenario's name.
import { isFilePath } from '../input/builtin-file.js';
import { InputError } from '../system/errors.js';
import { listScenarios, loadScenario } from './scenario-file.js';

/**
 * @typedef {{ name: string, description: string, members: string[] }} ScenarioGroup
 * @typedef {{ name: string, description: string, group: string|null, file: string }} GroupedScenario
 */

/**
 * The shipped scenarios with the group each names (validated by the loader).
 * @returns {GroupedScenario[]}
 */
export function shippedScenarios() {
  return listScenarios().map((scenario) => ({ ...scenario, group: loadScenario(scenario.name).group }));
}

/**
 * What the members' descriptions share, the words that differ shown as "…" ("Cap … kbps with a … drop-tail queue
 * each direction (F §4.3)"); descriptions of different lengths keep the words they all start and end with; '' when
 * they share none.
 * @param {string[]} descriptions
 */
export function commonDescription(descriptions) {
  const words = descriptions.map((text) => text.split(/\s+/).filter(Boolean));
  const [first] = words;
  /** @param {string[]} w @param {number} index @param {boolean} fromEnd */
  const wordAt = (w, index, fromEnd) => (fromEnd ? w[w.length - 1 - index] : w[index]);
  /** @param {number} index @param {boolean} [fromEnd] */
  const sameAt = (index, fromEnd = false) => words.every((w) => wordAt(w, index, fromEnd) === wordAt(first, index, fromEnd));
  let kept;
  if (words.every((w) => w.length === first.length)) {
    kept = first.map((word, index) => (sameAt(index) ? word : '…'));
  } else {
    const shortest = Math.min(...words.map((w) => w.length));
    let head = 0;
    while (head < shortest && sameAt(head)) head += 1;
    let tail = 0;
    while (tail < shortest - head && sameAt(tail, true)) tail += 1;
    kept = [...first.slice(0, head), '…', ...first.slice(first.length - tail)];
  }
  const collapsed = kept.filter((word, index) => !(word === '…' && kept[index - 1] === '…'));
  return collapsed.every((word) => word === '…') ? '' : collapsed.join(' ');
}

/**
 * The groups among a list of scenarios, by name; members in the list's order.
 * @param {GroupedScenario[]} scenarios
 * @returns {ScenarioGroup[]}
 * @throws {InputError} when a group has a scenario's name
 */
export function groupsOf(scenarios) {
  const names = new Set(scenarios.map((s) => s.name));
  /** @type {Map<string, GroupedScenario[]>} */
  const byGroup = new Map();
  for (const scenario of scenarios) {
    if (scenario.group === null) continue;
    if (names.has(scenario.group)) {
      throw new InputError(`${scenario.file}: group: '${scenario.group}' is also a scenario's name, so \`scenario ${scenario.group}\` would be ambiguous; rename the group or that scenario`);
    }
    byGroup.set(scenario.group, [...(byGroup.get(scenario.group) ?? []), scenario]);
  }
  return [...byGroup.entries()].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([name, members]) => ({
      name, description: commonDescription(members.map((m) => m.description)), members: members.map((m) => m.name),
    }));
}

/**
 * The scenarios a command-line name stands for: a group's members, one shipped scenario, or a scenario file.
 * @param {string} nameOrPath
 * @param {GroupedScenario[]} [scenarios] the shipped ones
 * @returns {{ group: ScenarioGroup|null, names: string[] }} names are what loadScenario takes
 * @throws {InputError} for a name that is neither, listing both kinds
 */
export function resolveScenarioOrGroup(nameOrPath, scenarios = shippedScenarios()) {
  if (isFilePath(nameOrPath)) return { group: null, names: [nameOrPath] };
  const groups = groupsOf(scenarios);
  const group = groups.find((g) => g.name === nameOrPath);
  if (group) return { group, names: group.members };
  if (scenarios.some((s) => s.name === nameOrPath)) return { group: null, names: [nameOrPath] };
  throw new InputError(`unknown scenario '${nameOrPath}'; known: ${scenarios.map((s) => s.name).join(', ')}; groups: ${groups.map((g) => g.name).join(', ') || 'none'}`);
}
