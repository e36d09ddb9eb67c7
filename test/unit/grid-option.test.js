// --grid, --spread and --grid-secrets as scenario, suite and reproduce take them (commands/grid-option.js): checked
// before anything runs, a Grid that does not answer is exit 3 before the first run. No Grid is started here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gridRunOption } from '../../orchestrator/commands/grid-option.js';
import { SECRET_ENV } from '../../orchestrator/grid/secrets.js';
import { EnvironmentError, InputError } from '../../orchestrator/lib/system/errors.js';
import { runCli, tempDir } from '../helpers/cli.js';

const secrets = { [SECRET_ENV.registrationSecret]: 'r', [SECRET_ENV.username]: 'u', [SECRET_ENV.password]: 'p' };
/** Nothing listens on port 49 (a reserved port, never bound here). */
const DEAD_HUB = 'http://127.0.0.1:49';

test('no --grid is no Grid; --spread alone or a --grid that is not http(s)://host:port is bad input', async () => {
  assert.equal(await gridRunOption({}), undefined);
  await assert.rejects(gridRunOption({ spread: true }), (error) => error instanceof InputError && /--spread .* needs --grid <url>/.test(error.message));
  for (const grid of ['ftp://hub:4444', 'http://hub:4444/wd/hub', 'hub:4444']) {
    await assert.rejects(gridRunOption({ grid }), (error) => error instanceof InputError && /--grid must be the router's or hub's URL/.test(error.message), grid);
  }
});

test('a Grid that does not answer is an environment error (exit 3) naming the URL', async () => {
  Object.assign(process.env, secrets);
  await assert.rejects(gridRunOption({ grid: DEAD_HUB, spread: true }),
    (error) => error instanceof EnvironmentError && /the Grid at http:\/\/127\.0\.0\.1:49 does not answer GET \/status/.test(error.message));
});

test('suite and reproduce take --grid: a Grid that does not answer stops them with exit 3 before the first run', { timeout: 60_000 }, async () => {
  const cases = [
    ['suite', 'smoke', '--grid', DEAD_HUB, '--spread'],
    ['reproduce', 'j16-table-8-1', '--repetitions', '1', '--grid', DEAD_HUB],
  ];
  for (const args of cases) {
    const out = path.join(tempDir('wtb-grid-option-'), 'suite');
    const run = await runCli([...args, '--out', out], { env: secrets, timeoutMs: 60_000 });
    assert.equal(run.code, 3, `${args[0]}: ${run.stdout}\n${run.stderr}`);
    assert.match(run.stderr, /the Grid at http:\/\/127\.0\.0\.1:49 does not answer GET \/status/, args[0]);
    assert.ok(!existsSync(out) || readdirSync(out).length === 0, `${args[0]}: no run was made in ${out}`);
  }
  const spreadAlone = await runCli(['suite', 'smoke', '--spread'], { env: secrets, timeoutMs: 60_000 });
  assert.equal(spreadAlone.code, 2, spreadAlone.stderr);
  assert.match(spreadAlone.stderr, /--spread places peers on Grid nodes: it needs --grid <url>/);
});
