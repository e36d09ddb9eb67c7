// The nightly workflow: linted by actionlint when it is installed, and kept consistent with the CLI.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const WORKFLOW = fileURLToPath(new URL('../../.github/workflows/nightly.yml', import.meta.url));
const text = readFileSync(WORKFLOW, 'utf8');
const onPath = spawnSync('sh', ['-c', 'command -v actionlint'], { encoding: 'utf8' }).status === 0;

test('actionlint finds no problem in .github/workflows/nightly.yml', {
  skip: !onPath && 'actionlint is not on PATH (install: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12, then add $(go env GOPATH)/bin to PATH)',
}, () => {
  const { status, stdout, stderr } = spawnSync('actionlint', ['-no-color', WORKFLOW], { encoding: 'utf8' });
  assert.equal(status, 0, `${stdout}${stderr}`);
});

test('the shard matrix matches SHARDS, and the steps use the suite, merge and baseline commands', () => {
  const matrix = /^\s+shard: \[([\d, ]+)\]$/m.exec(text)?.[1].split(',').map(Number);
  const shards = Number(/^\s+SHARDS: (\d+)$/m.exec(text)?.[1]);
  assert.deepEqual(matrix, Array.from({ length: shards }, (_, i) => i + 1));
  assert.match(text, /cli\.js suite "\$SUITE" --shard "\$\{\{ matrix\.shard \}\}\/\$SHARDS" --out "shard-\$\{\{ matrix\.shard \}\}" --no-fail/);
  assert.match(text, /cli\.js merge shards\/shard-\* --out merged/);
  assert.match(text, /cli\.js baseline save merged --out/);
  assert.match(text, /^\s+schedule:\n\s+- cron: /m);
  assert.match(text, /^\s+workflow_dispatch:/m);
});
