// A hostile HTTP peer (a Grid hub, a node) whose reply never ends, for the tests of bounded reads.
import { createServer } from 'node:http';
import { Readable, pipeline } from 'node:stream';

/** Where the endless reply stops anyway, so that code that reads it whole cannot take the machine down. */
const SAFETY_BYTES = 256 * 1024 * 1024;

/**
 * An HTTP server on 127.0.0.1 answering every request with 200 and a body without end (spaces after `prefix`), sent
 * as fast as the client reads it.
 * @param {string} [prefix]
 * @returns {Promise<{ url: string, sent: () => number, close: () => void }>}
 */
export async function startEndlessServer(prefix = '') {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const server = createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    const body = Readable.from((function* endless() {
      yield Buffer.from(prefix);
      while (sent < SAFETY_BYTES) {
        sent += chunk.length;
        yield chunk;
      }
    })());
    pipeline(body, response, () => { /* the client hung up: what the tests expect */ });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}`, sent: () => sent, close: () => { server.closeAllConnections(); server.close(); } };
}
