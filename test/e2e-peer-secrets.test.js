// The pages' join secrets (issue 22) after a real short run: two Chromium peers through the relay, 8 s at 360p30. The
// pages joined with them (the run passed), and no file of the run directory, result.json included, nor any line the
// run logged holds one. About 15 s; run it alone:
//   node --test test/e2e-peer-secrets.test.js
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createPeerSecrets } from '../orchestrator/lib/system/peer-secrets.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { runScenario } from '../orchestrator/run/run.js';
import { tempDir } from './helpers/cli.js';

/** Every file below dir that holds any of the texts (as bytes, whatever the file's format). @param {string} dir @param {string[]} texts */
function filesHolding(dir, texts) {
  const files = readdirSync(dir, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
  const holds = (file) => {
    const bytes = readFileSync(file);
    return texts.some((text) => bytes.includes(text));
  };
  return { searched: files.length, holding: files.filter(holds) };
}

test('after a real run no file of its directory and no logged line holds a page\'s secret; the pages joined with theirs', { timeout: 120_000 }, async () => {
  /** @type {string[]} */
  const secrets = [];
  const lines = [];
  const outDir = tempDir('wtb-peer-secrets-');
  const { result, runDir } = await runScenario({
    scenario: loadScenario('unconstrained', { durationS: 8, warmupS: 2 }), video: '360p30', outDir, log: (line) => lines.push(line),
    createSecrets: (peers) => {
      const made = createPeerSecrets(peers);
      secrets.push(...made.values());
      return made;
    },
  });
  assert.equal(result.status, 'passed', JSON.stringify(result.errors));
  assert.equal(secrets.length, 2);
  assert.deepEqual(result.events.filter((e) => e.type === 'joined').map((e) => e.peer).sort(), ['p0', 'p1']);
  assert.deepEqual(result.events.filter((e) => e.type === 'rejected'), [], 'a page\'s join was refused');
  assert.ok(result.timeline.length >= 10, `${result.timeline.length} samples`);

  const { searched, holding } = filesHolding(runDir, secrets);
  assert.ok(searched >= 1 && readdirSync(runDir).includes('result.json'), `searched ${searched} files`);
  assert.deepEqual(holding, [], 'files of the run holding a secret');
  assert.ok(lines.length > 0 && !lines.some((line) => secrets.some((secret) => line.includes(secret))), 'a logged line holds a secret');
  // The search finds a secret where there is one.
  const planted = tempDir('wtb-planted-');
  writeFileSync(path.join(planted, 'x.json'), JSON.stringify({ url: `http://127.0.0.1/#${secrets[1]}` }));
  assert.equal(filesHolding(planted, secrets).holding.length, 1);
});
