import { groupsOf, shippedScenarios } from '../lib/scenario/scenario-groups.js';

export const command = 'list';
export const describe = 'List the built-in scenarios and scenario groups with a one-line description';
/** @type {Record<string, import('yargs').Options>} */
export const builder = {};

export async function handler() {
  const scenarios = shippedScenarios();
  const groups = groupsOf(scenarios);
  const width = Math.max(...scenarios.map((s) => s.name.length), ...groups.map((g) => g.name.length));
  for (const { name, description } of scenarios) console.log(`${name.padEnd(width)}  ${description}`);
  if (!groups.length) return;
  console.log('\ngroups (`scenario <group>` runs every member in turn):');
  for (const { name, description, members } of groups) {
    console.log(`${name.padEnd(width)}  ${members.length} scenarios${description ? `: ${description}` : ''}\n${' '.repeat(width + 2)}${members.join(', ')}`);
  }
}
