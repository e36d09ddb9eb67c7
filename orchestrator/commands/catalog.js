// `webrtc-testbed catalog`: write docs/catalog.md from the scenario files, or check that it is up to date.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../lib/system/errors.js';
import { writeFileAtomic } from '../lib/system/files.js';
import { displayPath } from '../lib/input/json-file.js';
import { REPO_ROOT } from '../lib/system/paths.js';
import { listScenarios, loadScenario } from '../lib/scenario/scenario-file.js';
import { renderCatalog } from '../report/render-catalog.js';

export const DEFAULT_CATALOG = path.join(REPO_ROOT, 'docs', 'catalog.md');

export const command = 'catalog';
export const describe = 'Write the scenario catalog (docs/catalog.md: every built-in scenario\'s parameters and published result) from the scenario files';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .option('out', { type: 'string', default: DEFAULT_CATALOG, defaultDescription: 'docs/catalog.md', describe: 'the markdown file to write (or check)' })
  .option('check', { type: 'boolean', default: false, describe: 'write nothing; exit 1 when the file differs from what the scenario files give' })
  .example('$0 catalog', 'regenerate docs/catalog.md after editing a scenario file')
  .example('$0 catalog --check', 'fail when docs/catalog.md is stale (CI)');

/** @returns {string} the catalog of the shipped scenarios */
export const shippedCatalog = () => renderCatalog(listScenarios().map(({ name }) => loadScenario(name)));

/** @param {{out: string, check: boolean}} argv */
export async function handler(argv) {
  const markdown = shippedCatalog();
  const shown = displayPath(argv.out);
  if (!argv.check) {
    await writeFileAtomic(argv.out, markdown);
    console.log(`wrote ${shown}`);
    return;
  }
  let current = null;
  try {
    current = readFileSync(argv.out, 'utf8');
  } catch {
    // a missing file is stale too
  }
  if (current !== markdown) {
    throw new HarnessError(`${shown} is ${current === null ? 'missing' : 'stale'}: it does not match orchestrator/scenarios/*.json; run \`npm run catalog\` and commit it`);
  }
  console.log(`${shown} is up to date`);
}
