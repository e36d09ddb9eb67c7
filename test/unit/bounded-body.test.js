import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readBoundedText } from '../../orchestrator/lib/input/bounded-body.js';

/** A reply whose body is `chunks` chunks of `size` bytes, with no Content-Length; counts the chunks pulled. */
function streamedReply(chunks, size) {
  const pulled = { count: 0 };
  const body = new ReadableStream({
    pull(controller) {
      if (pulled.count === chunks) return controller.close();
      pulled.count += 1;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
  return { response: new Response(body), pulled };
}

test('bounded reply: a reply within the limit is read whole', async () => {
  const { response } = streamedReply(3, 10);
  assert.equal(await readBoundedText(response, 30, 'the reply'), 'a'.repeat(30));
});

test('bounded reply: an endless reply is cut at the limit, not read whole', async () => {
  const { response, pulled } = streamedReply(1_000_000, 64 * 1024);
  await assert.rejects(readBoundedText(response, 1024 * 1024, 'the hub\'s /status'), /the hub's \/status is over 1048576 bytes/);
  assert.ok(pulled.count <= 20, `pulled ${pulled.count} chunks of 64 KiB for a 1 MiB limit`);
});

test('bounded reply: a declared Content-Length over the limit is refused before reading', async () => {
  const response = new Response('x'.repeat(100), { headers: { 'content-length': '100' } });
  await assert.rejects(readBoundedText(response, 99, 'the reply'), /Content-Length 100/);
});
