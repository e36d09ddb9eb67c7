// Receive-side estimation on a real call (--bandwidth-estimation remb, client-app/bandwidth-estimation.js): both
// Chromium peers negotiate no transport-wide feedback, and REMB alone still holds the video under a capped link and
// lets it use that link. The default's transport-wide feedback is checked by test/e2e-codecs.test.js on its runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runScenarioCli } from './helpers/cli.js';

const WARMUP_S = 8;

test('bandwidth-750 with --bandwidth-estimation remb: no transport-wide feedback either way, the video under the cap and using it', { timeout: 120_000 }, async () => {
  const run = await runScenarioCli('bandwidth-750', ['--duration', '24', '--warmup', String(WARMUP_S), '--bandwidth-estimation', 'remb']);
  assert.equal(run.code, 0, `exit ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { result } = run;
  assert.equal(result.scenario.bandwidthEstimation, 'remb');
  for (const [peer, remote] of [['p0', 'p1'], ['p1', 'p0']]) {
    const connection = result.environment.codecs.peers[peer]?.[remote];
    for (const direction of ['send', 'recv']) {
      assert.equal(connection?.[direction]?.transportWideCc, false, `${peer}->${remote} ${direction}: ${JSON.stringify(connection)}`);
    }
  }
  const measured = result.timeline.filter((entry) => entry.t > WARMUP_S);
  for (const peer of ['p0', 'p1']) {
    const mine = measured.filter((entry) => entry.peer === peer);
    const sorted = (/** @type {number[]} */ values) => values.filter(Number.isFinite).sort((a, b) => a - b);
    const sent = sorted(mine.map((entry) => entry.video?.sendKbps));
    const estimate = sorted(mine.map((entry) => entry.availableOutgoingKbps));
    const median = (/** @type {number[]} */ values) => values[Math.floor(values.length / 2)];
    console.log(`remb: ${peer} sends ${median(sent)} kbps (median of ${sent.length} s), estimate ${median(estimate)} kbps`);
    assert.ok(sent.length >= 10, `${peer}: ${sent.length} measured seconds`);
    // The cap counts UDP payload + 28 bytes; audio shares it.
    assert.ok(median(sent) < 750, `${peer} sends ${median(sent)} kbps through a 750 kbps link`);
    assert.ok(median(sent) > 250, `${peer} sends only ${median(sent)} kbps: REMB should let it use the link`);
    assert.ok(median(estimate) > 250 && median(estimate) < 1500, `${peer}'s send estimate ${median(estimate)} kbps`);
  }
});
