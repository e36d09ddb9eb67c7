// Chromium field trials for a run's browsers (lib/scenario/field-trials.js): validated at the edge, from the scenario
// file or --field-trials, and put on Chromium's command line as one element. The real run: test/e2e-field-trials.test.js.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { MAX_FIELD_TRIALS, MAX_FIELD_TRIALS_CHARS, normalizeFieldTrials } from '../../orchestrator/lib/scenario/field-trials.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { chromiumArgs, launchOptions } from '../../orchestrator/run/browsers.js';

const refused = (pattern) => (error) => error instanceof InputError && pattern.test(error.message);
const LOSS_V1 = 'WebRTC-Bwe-LossBasedBweV2/Enabled:false/';

test('field trials: Trial/Group/ pairs, groups with their parameters; none is null', () => {
  assert.equal(normalizeFieldTrials(undefined, 'w'), null);
  assert.equal(normalizeFieldTrials('', 'w'), null);
  assert.equal(normalizeFieldTrials(LOSS_V1, 'w'), LOSS_V1);
  const two = `${LOSS_V1}WebRTC-Video-QualityScaling/Enabled-29,95,149,205,35,49/`;
  assert.equal(normalizeFieldTrials(two, 'w'), two);
});

test('every malformed field-trial string is refused naming the flag or field and what to write', () => {
  assert.throws(() => normalizeFieldTrials('WebRTC-Bwe-LossBasedBweV2/Enabled:false', '--field-trials'), refused(/^--field-trials: .* must end with '\/'/));
  assert.throws(() => normalizeFieldTrials('WebRTC-A/', 'f: fieldTrials'), refused(/^f: fieldTrials: a trial without its group; write Trial\/Group\/ pairs/));
  assert.throws(() => normalizeFieldTrials('A/x/A/y/', 'w'), refused(/trial A is given twice/));
  // Nothing a shell or another flag could read: spaces, quotes, a second flag, a path.
  for (const hostile of ['A/x --no-sandbox/', 'A/$(id)/', 'A/x"/', '--enable-logging/x/', '../A/x/', 'A/x;y/', 'A/x\n/']) {
    assert.throws(() => normalizeFieldTrials(hostile, '--field-trials'), refused(/^--field-trials: /), hostile);
  }
  assert.throws(() => normalizeFieldTrials(42, '--field-trials'), refused(/42 is not a field-trial string/));
  assert.throws(() => normalizeFieldTrials(`${'A'.repeat(MAX_FIELD_TRIALS_CHARS)}/x/`, 'w'), refused(/more than 1024; give fewer trials/));
  const many = Array.from({ length: MAX_FIELD_TRIALS + 1 }, (_, i) => `T${i}/g/`).join('');
  assert.throws(() => normalizeFieldTrials(many, 'w'), refused(/17 trials, more than 16/));
});

test('a scenario file asks for field trials, --field-trials overrides it; a bad one in the file names the file and field', () => {
  assert.equal(loadScenario('loss-10').fieldTrials, null);
  assert.equal(loadScenario('loss-10', { fieldTrials: LOSS_V1 }).fieldTrials, LOSS_V1);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-trials-'));
  const file = path.join(dir, 'trials.json');
  writeFileSync(file, JSON.stringify({ name: 'trials', description: 'd', fieldTrials: LOSS_V1 }));
  assert.equal(loadScenario(file).fieldTrials, LOSS_V1);
  assert.equal(loadScenario(file, { fieldTrials: 'WebRTC-A/B/' }).fieldTrials, 'WebRTC-A/B/');
  writeFileSync(file, JSON.stringify({ name: 'trials', description: 'd', fieldTrials: 'no-group/' }));
  assert.throws(() => loadScenario(file), refused(/trials\.json: fieldTrials: a trial without its group/));
});

test('Chromium gets them as one --force-fieldtrials element; Firefox and a run without them get nothing', () => {
  const media = { video: '/v.y4m', audio: '/a.wav' };
  assert.ok(chromiumArgs(media, 'http://127.0.0.1:1', LOSS_V1).includes(`--force-fieldtrials=${LOSS_V1}`));
  assert.ok(!chromiumArgs(media, 'http://127.0.0.1:1').some((arg) => arg.startsWith('--force-fieldtrials')));
  const common = { executablePath: '/usr/bin/chromium', media, url: 'http://127.0.0.1:1/', headful: false, launchSpec: {}, fieldTrials: LOSS_V1 };
  assert.ok(launchOptions({ kind: 'chromium', ...common }).args.includes(`--force-fieldtrials=${LOSS_V1}`));
  assert.ok(!launchOptions({ kind: 'firefox', ...common }).args.some((arg) => arg.startsWith('--force-fieldtrials')));
});
