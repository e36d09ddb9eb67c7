import { listScenarios } from '../lib/scenario.js';

export const command = 'list';
export const describe = 'List the built-in scenarios with a one-line description';
export const builder = {};

export async function handler() {
  const scenarios = await listScenarios();
  const width = Math.max(...scenarios.map((s) => s.name.length));
  for (const { name, description } of scenarios) console.log(`${name.padEnd(width)}  ${description}`);
}
