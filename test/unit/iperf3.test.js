import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { flowRows, parseIperf3Client } from '../../orchestrator/lib/cross/iperf3.js';
import { parseSsTcpInfo } from '../../orchestrator/lib/cross/tcp-info.js';

// Real iperf3 3.12 output through the relay (2000 kbps, 50 ms each way, 300 ms queue): a 10 s TCP flow and a
// 6 s 500 kbps UDP flow, both `-J --get-server-output`, and a client that found no server.
const fixture = (name) => readFileSync(new URL(`../fixtures/iperf3/${name}`, import.meta.url), 'utf8');
const sum = (values) => values.reduce((a, b) => a + b, 0);

test('a TCP client document: the receiver is the server\'s intervals, the sender carries TCP_INFO RTT', () => {
  const json = JSON.parse(fixture('tcp-client.json'));
  const parsed = parseIperf3Client(fixture('tcp-client.json'));
  assert.equal(parsed.protocol, 'tcp');
  assert.equal(parsed.receiverSource, 'server');
  assert.equal(parsed.receiver.length, json.server_output_json.intervals.length);
  assert.deepEqual(parsed.receiver[0], {
    startS: json.server_output_json.intervals[0].sum.start, endS: json.server_output_json.intervals[0].sum.end,
    bytes: json.server_output_json.intervals[0].sum.bytes, rttMs: null,
  });
  assert.equal(parsed.sender.length, json.intervals.length);
  assert.equal(parsed.sender[0].rttMs, json.intervals[0].streams[0].rtt / 1000);
  // Everything the receiver's intervals hold is what it received in total.
  assert.equal(sum(parsed.receiver.map(({ bytes }) => bytes)), parsed.totals.bytesReceived);
  assert.equal(parsed.totals.bytesSent, json.end.sum_sent.bytes);
  assert.equal(parsed.totals.meanRttMs, json.end.streams[0].sender.mean_rtt / 1000);
  assert.equal(parsed.totals.congestionControl, 'cubic');
  assert.equal(parsed.totals.lostPercent, null);
});

test('a UDP client document: receiver bytes and loss from the server, no RTT', () => {
  const parsed = parseIperf3Client(fixture('udp-client.json'));
  assert.equal(parsed.protocol, 'udp');
  assert.equal(parsed.receiverSource, 'server');
  assert.equal(sum(parsed.receiver.map(({ bytes }) => bytes)), parsed.totals.bytesReceived);
  assert.equal(parsed.totals.bytesReceived, parsed.totals.bytesSent, 'nothing was lost on that path');
  assert.equal(parsed.totals.lostPercent, 0);
  assert.equal(parsed.totals.meanRttMs, null);
  assert.ok(parsed.sender.length > 0, 'parsed.sender: nothing to check');
  assert.ok(parsed.sender.every(({ rttMs }) => rttMs === null));
});

test('without the server\'s output the sender\'s intervals stand in, and say so', () => {
  const json = JSON.parse(fixture('tcp-client.json'));
  delete json.server_output_json;
  const parsed = parseIperf3Client(JSON.stringify(json));
  assert.equal(parsed.receiverSource, 'sender');
  assert.deepEqual(parsed.receiver, parsed.sender);
});

test('iperf3\'s own error, output that is not JSON and malformed intervals are InputErrors naming the output', () => {
  assert.throws(() => parseIperf3Client(fixture('refused-client.json'), 'x.json'),
    (error) => error instanceof InputError && /^x\.json: iperf3 reported: unable to connect to server: Connection refused$/.test(error.message));
  assert.throws(() => parseIperf3Client('iperf3: error - unable to connect', 'y.json'), /y\.json: not JSON .*-J.*It printed: iperf3: error/);
  assert.throws(() => parseIperf3Client('', 'y.json'), /It printed nothing/);
  const json = JSON.parse(fixture('tcp-client.json'));
  json.intervals[2].sum.bytes = -1;
  assert.throws(() => parseIperf3Client(JSON.stringify(json), 'z.json'), /z\.json: intervals\[2\]\.sum needs numeric start <= end and bytes >= 0/);
  assert.throws(() => parseIperf3Client('{"start": {"test_start": {"protocol": "SCTP"}}, "intervals": []}'), /expected "TCP" or "UDP"/);
});

/** @param {[number, number, number, number?][]} intervals [startS, endS, bytes, rttMs] */
const testOf = (intervals) => {
  const list = intervals.map(([startS, endS, bytes, rttMs = null]) => ({ startS, endS, bytes, rttMs }));
  return { protocol: 'tcp', receiver: list, receiverSource: 'server', sender: list, totals: {} };
};

test('rows spread each interval over the media seconds it overlaps; second t covers (t-1, t]', () => {
  // Anchor 0.5: 1000 bytes over (0.5, 1.5], 2000 over (1.5, 2.5].
  const rows = flowRows({ flow: 'tcp', windowS: [0.5, 2.5], tests: [{ anchorS: 0.5, test: /** @type {any} */ (testOf([[0, 1, 1000], [1, 2, 2000]])) }] });
  assert.deepEqual(rows.map(({ t, rateKbps }) => [t, rateKbps]), [
    [1, (500 * 8) / 1000], // half of the first interval
    [2, (500 + 1000) * 8 / 1000], // the other half of it and half of the second
    [3, (1000 * 8) / 1000], // the rest of the second
  ]);
  assert.ok(rows.length > 0, 'rows: nothing to check');
  assert.ok(rows.every((row) => row.flow === 'tcp' && row.source === 'iperf3' && !('rttMs' in row)));
});

test('bursts of one flow add up, seconds between them are 0 kbps, and the window extends to the last byte', () => {
  const rows = flowRows({
    flow: 'short', windowS: [0, 4],
    tests: [
      { anchorS: 0, test: /** @type {any} */ (testOf([[0, 0.5, 1000]])) },
      { anchorS: 2.25, test: /** @type {any} */ (testOf([[0, 0.5, 500]])) },
      { anchorS: 2.5, test: /** @type {any} */ (testOf([[0, 2, 4000]])) },
    ],
  });
  assert.deepEqual(rows.map(({ t, rateKbps }) => [t, rateKbps]), [
    [1, 8], [2, 0], [3, (500 + 1000) * 8 / 1000], [4, 16], [5, 8],
  ]);
});

test('RTT is the sender\'s, weighted by how much of each interval falls into the second', () => {
  const rows = flowRows({ flow: 'tcp', windowS: [0, 2], tests: [{ anchorS: 0.25, test: /** @type {any} */ (testOf([[0, 1, 0, 100], [1, 2, 0, 200]])) }] });
  assert.deepEqual(rows.map(({ t, rttMs }) => [t, rttMs]), [[1, 100], [2, 0.25 * 100 + 0.75 * 200], [3, 200]]);
});

test('ss -tinH: TCP_INFO per connection, the data connection told apart by bytes acked', () => {
  const text = `ESTAB 0      0      10.203.0.1:35062 10.203.0.2:5201
\t bbr wscale:10,10 rto:384 rtt:130.322/44.739 ato:40 mss:1448 bytes_sent:207 bytes_acked:208 minrtt:109.264 snd_wnd:65536
ESTAB 0      259192 10.203.0.1:35064 10.203.0.2:5201
\t cubic wscale:10,10 rto:596 rtt:393.6/2.03 mss:1448 bytes_acked:696526 segs_out:598 minrtt:104.635 snd_wnd:392192
`;
  assert.deepEqual(parseSsTcpInfo(text), [
    { local: '10.203.0.1:35062', peer: '10.203.0.2:5201', congestionControl: 'bbr', rttMs: 130.322, minRttMs: 109.264, bytesAcked: 208 },
    { local: '10.203.0.1:35064', peer: '10.203.0.2:5201', congestionControl: 'cubic', rttMs: 393.6, minRttMs: 104.635, bytesAcked: 696526 },
  ]);
  assert.deepEqual(parseSsTcpInfo(''), []);
});
