// Real calls relayed by a real coturn (Debian's turnserver) over UDP, TCP and TLS, in netem's middle namespace: each
// path asserted from the candidate pair both pages' getStats selected, the relayed media seen on the peers' shaped
// links, and nothing left afterwards: no turnserver process, no credential in the run's folder, result or output.
// And the hostile side: a bad `turn` field, and a TURN scenario on an emulator that cannot shape it, refused at load.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { findExecutable } from '../orchestrator/lib/system/paths.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { harnessNamespaces, runCli, runScenarioCli, tempDir, turnserversOf } from './helpers/cli.js';

const caps = await netemCapabilities();
const skip = !(caps.netns && caps.htb) ? `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`
  : !findExecutable('turnserver', process.env.PATH ?? '') ? 'needs coturn (npm run setup: apt-get install coturn)' : false;

/** Every file under dir, recursively. @param {string} dir @returns {string[]} */
const filesUnder = (dir) => readdirSync(dir).flatMap((name) => {
  const file = path.join(dir, name);
  return statSync(file).isDirectory() ? filesUnder(file) : [file];
});


for (const transport of ['udp', 'tcp', 'tls']) {
  test(`TURN/${transport.toUpperCase()}: every second of both connections is relayed over ${transport}, shaped, and nothing is left`, { skip }, async () => {
    const run = await runScenarioCli(`turn-${transport}`, ['--emulator', 'netem', '--duration', '12', '--warmup', '4']);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const { paths, timeline, network } = run.result;

    // From getStats: both connections on relay candidates, reached over the asked transport, every second after connection.
    assert.deepEqual(paths.connections.map((c) => `${c.peer}->${c.remote}`).sort(), ['p0->p1', 'p1->p0']);
    for (const connection of paths.connections) {
      assert.deepEqual(connection.paths.map((p) => [p.localType, p.relayProtocol, p.remoteType]), [['relay', transport, 'relay']], JSON.stringify(connection));
      assert.ok(connection.paths[0].seconds >= 10, `${connection.peer}: ${connection.paths[0].seconds} s with a pair`);
    }
    assert.deepEqual(paths.checks.map((c) => [c.check, c.peer, c.passed]), [['turnPath', 'p0', true], ['turnPath', 'p1', true]]);
    const late = timeline.filter((entry) => entry.t >= 4);
    assert.ok(late.length >= 16, `${late.length} samples after the warm-up`);
    for (const entry of late) assert.equal(entry.selectedPair?.relayProtocol, transport, `${entry.peer} at ${entry.t} s`);

    // The relayed media crossed the peers' shaped uplinks (coturn runs beyond them, in the middle namespace).
    for (const link of ['p0.up', 'p1.up']) {
      const peakBytes = Math.max(0, ...network.truth.filter((row) => row.link === link).map((row) => row.bytesOut ?? 0));
      assert.ok(peakBytes > 100_000, `${link} carried at most ${peakBytes} bytes in a second: the media bypassed it`);
    }
    assert.ok(network.commands.some((c) => / netns exec wtb-\S+-sfu \S*turnserver -c \S+turnserver\.conf$/.test(c.cmd)), 'coturn started in the middle namespace');
    assert.ok(run.result.resources.summary.turnserver?.cpuPct.n > 0, 'coturn\'s CPU sampled like the browsers\'');
    // coturn's own load each second: its two allocations open, the relayed media on its link both ways, its CPU.
    const load = run.result.resources.turn;
    assert.ok(load.rows.filter((row) => row.t > 4).length >= 6, JSON.stringify(load));
    for (const row of load.rows.filter((r) => r.t > 4)) {
      assert.ok(row.allocations >= 1 && row.inKbps > 50 && row.outKbps > 50 && row.cpuPct !== null, JSON.stringify(row));
    }
    const { summary } = load;
    assert.ok(summary.maxAllocations >= 1 && summary.inKbpsMean > 100 && summary.outKbpsMean > 100, JSON.stringify(summary));
    const report = readFileSync(path.join(run.out, 'report.html'), 'utf8');
    assert.match(report, new RegExp(`<h2>Network path</h2>[\\s\\S]*<td>relay/udp</td><td>${transport}</td>`));
    assert.match(report, /<h2>TURN server load<\/h2>/);

    // Nothing left: no process, no configuration or key; the credential (username.password in the page's fragment,
    // username:password in coturn's configuration) nowhere in the folder, the result or the output.
    assert.deepEqual(turnserversOf(run.out), []);
    assert.equal(existsSync(path.join(run.out, 'turn', 'turnserver.conf')), false);
    assert.equal(existsSync(path.join(run.out, 'turn', 'key.pem')), false);
    const log = readFileSync(path.join(run.out, 'turn', 'turnserver.log'), 'utf8');
    const username = log.match(/user <(wtb[0-9a-f]{12})>/)?.[1];
    assert.ok(username, 'coturn authenticated the run\'s user');
    const credential = new RegExp(`${username}[.:][0-9a-f]{8,}|(^|[^0-9a-f])[0-9a-f]{48}([^0-9a-f]|$)`);
    const texts = [run.stdout, run.stderr, ...filesUnder(run.out).map((file) => readFileSync(file, 'latin1'))];
    assert.ok(texts.length >= 5, `${texts.length} texts read`);
    assert.deepEqual(texts.filter((text) => credential.test(text)).map((text) => text.slice(0, 80)), []);
  });
}

for (const signal of /** @type {const} */ (['SIGINT', 'SIGKILL'])) {
  test(`${signal} to the orchestrator mid-call leaves no turnserver, namespace or credential file`, { skip }, async () => {
    const out = tempDir();
    let sent = false;
    const { code, stderr } = await runCli(['scenario', 'turn-tls', '--emulator', 'netem', '--video', '360p30', '--duration', '60', '--out', out], {
      onOutput: (text, child) => {
        if (sent || !/call started/.test(text)) return;
        sent = true;
        assert.equal(turnserversOf(out).length, 1, 'coturn runs during the call');
        setTimeout(() => child.kill(signal), 2000);
      },
    });
    assert.ok(sent, stderr);
    assert.equal(code, signal === 'SIGINT' ? 130 : null, stderr);
    // After a SIGKILL its death signal ends coturn at once; netem's guardian removes the namespaces.
    for (let i = 0; i < 50 && (turnserversOf(out).length || harnessNamespaces().length); i++) await sleep(200);
    assert.deepEqual(turnserversOf(out), []);
    assert.deepEqual(harnessNamespaces(), []);
    assert.deepEqual(readdirSync(path.join(out, 'turn')).sort(), ['cert.pem', 'turndb', 'turnserver.log', 'turnserver.pid']);
  });
}

test('a bad turn field is refused at load naming it, and a TURN scenario on the relay is refused naming netem (exit 2)', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'turn-bad.json');
  writeFileSync(file, JSON.stringify({ name: 'turn-bad', description: 'bad TURN transport', durationS: 30, turn: { transport: 'quic' } }));
  const bad = await runCli(['scenario', file, '--emulator', 'netem', '--out', tempDir()]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /turn-bad\.json: turn\.transport: "quic" is not a TURN transport: use one of udp, tcp, tls/);
  assert.doesNotMatch(bad.stdout + bad.stderr, /launched|turnserver:/);

  const relay = await runCli(['scenario', 'turn-udp', '--emulator', 'relay', '--out', tempDir()]);
  assert.equal(relay.code, 2, relay.stderr);
  assert.match(relay.stderr, /--emulator relay: scenario turn-udp has turn .*use --emulator netem/);
  assert.doesNotMatch(relay.stdout + relay.stderr, /launched|turnserver:/);
});
