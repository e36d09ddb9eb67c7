// Reading an HTTP reply from another process (a Grid hub, a node's relay, an SFU) with a byte limit: the body is
// streamed and the read stops at the limit, so a hostile or broken peer cannot make the orchestrator hold its reply.

/**
 * The reply's text, at most maxBytes of UTF-8; more is refused (and the rest of the stream cancelled).
 * @param {Response} response  a fetch() reply
 * @param {number} maxBytes
 * @param {string} what  the reply as named in the error, e.g. "grid-node n1's relay: the reply to open"
 * @returns {Promise<string>}
 */
export async function readBoundedText(response, maxBytes, what) {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`${what} is over ${maxBytes} bytes (Content-Length ${declared})`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`${what} is over ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
