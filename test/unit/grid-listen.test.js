import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkListenAddress } from '../../orchestrator/commands/grid-option.js';

test('--grid-listen takes one IPv4 address of this host, never every interface nor a name or another host\'s address', () => {
  assert.equal(checkListenAddress('127.0.0.1'), '127.0.0.1');
  for (const bad of ['0.0.0.0', 'localhost', '192.0.2.77', '::1', '']) {
    assert.throws(() => checkListenAddress(bad), /--grid-listen .*: give one IPv4 address of this host the nodes can reach \(this host has .*127\.0\.0\.1/, bad);
  }
});
