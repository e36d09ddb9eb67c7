import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderSetupByPath } from '../../orchestrator/report/render-setup.js';

const remotes = { p1: { negotiated: 1270, iceConnected: 1402, dtlsConnected: 1430, firstRtp: 1487, firstFrame: 1511 } };
const connections = [{ peer: 'p0', remote: 'p1', paths: [{ label: 'relay/udp over TCP → host/udp', firstT: 2, seconds: 9 }] }];

test('the report\'s set-up by path: each connection\'s phases beside the path it took first', () => {
  const html = renderSetupByPath({ setup: { peers: { p0: { remotes } } }, paths: { connections } });
  assert.match(html, /<h3>Set-up by path<\/h3>/);
  assert.match(html, /<th scope="row">p0 ← p1<\/th><td>relay\/udp over TCP → host\/udp<\/td><td>1,?270<\/td><td>132<\/td><td>28<\/td><td>81<\/td><td>1,?511<\/td>/);
});

test('the report\'s set-up by path: nothing without paths or milestones; hostile values dropped or escaped, never thrown', () => {
  assert.equal(renderSetupByPath({}), '');
  assert.equal(renderSetupByPath({ setup: { peers: { p0: { remotes } } } }), '');
  assert.equal(renderSetupByPath({ paths: { connections } }), '');
  for (const hostile of [null, 'x', { setup: 'x', paths: { connections: 'x' } }, { setup: { peers: { p0: { remotes: { p1: 'x' } } } }, paths: { connections: [null, 1, { peer: 1 }] } }]) {
    assert.equal(renderSetupByPath(hostile), '');
  }
  const html = renderSetupByPath({
    setup: { peers: { '<p0>': { remotes: { p1: { ...remotes.p1, iceConnected: '1402', dtlsConnected: Infinity } } } } },
    paths: { connections: [{ peer: '<p0>', remote: 'p1', paths: [{ label: '<script>', firstT: 1 }, { label: 7, firstT: 0 }] }] },
  });
  assert.ok(html.includes('&lt;script&gt;') && !html.includes('<script>') && !html.includes('<p0>'), html);
  assert.match(html, /<td>1,?270<\/td><td>—<\/td><td>—<\/td><td>—<\/td><td>1,?511<\/td>/);
});
