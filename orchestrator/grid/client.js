// Selenium Grid 4's HTTP API as the orchestrator uses it: the router's /status, new sessions, their deletion and a
// keep-alive. Every request carries the router's credentials (basic auth); they are never logged.
import { gridNodes, readyNodeId } from '../lib/grid/grid.js';
import { readBoundedText } from '../lib/input/bounded-body.js';
import { fieldOf, isRecord } from '../lib/input/validate.js';
import { EnvironmentError, errorMessage, errorCode, errorProperty } from '../lib/system/errors.js';

const REQUEST_TIMEOUT_MS = 10_000;
/** The longest reply read from a hub or node: a /status of 1000 two-slot nodes is about 2 MB. */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;
/** Chromium's start on a busy node, through chromedriver, takes a few seconds; the Grid queues a request this long. */
const NEW_SESSION_TIMEOUT_MS = 60_000;

/** @param {import('../lib/grid/grid-config.js').GridSecrets} secrets */
export const authHeaders = ({ username, password }) => ({ Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` });

/**
 * One request to the Grid; the reply's JSON. A Grid that does not answer is an EnvironmentError (exit 3).
 * @param {string} gridUrl @param {string} urlPath
 * @param {{ method?: string, body?: object, secrets: import('../lib/grid/grid-config.js').GridSecrets, timeoutMs?: number }} options
 * @returns {Promise<unknown>}
 */
export async function gridRequest(gridUrl, urlPath, { method = 'GET', body, secrets, timeoutMs = REQUEST_TIMEOUT_MS }) {
  const url = new URL(urlPath, gridUrl);
  let response;
  try {
    response = await fetch(url, {
      method,
      // The new-session endpoint refuses a JSON body without the charset.
      headers: { ...authHeaders(secrets), ...(body ? { 'Content-Type': 'application/json; charset=utf-8' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const why = errorCode(errorProperty(error, 'cause')) ?? errorCode(firstOf(errorProperty(errorProperty(error, 'cause'), 'errors'))) ?? String(errorProperty(errorProperty(error, 'cause'), 'message') ?? errorMessage(error));
    throw new EnvironmentError(`the Grid at ${url.origin} does not answer ${method} ${url.pathname} (${why}); `
      + 'start it with `npm run cli -- grid-hub` or check --grid', { cause: error });
  }
  if (response.status === 401) throw new EnvironmentError(`the Grid at ${url.origin} refused the router credentials; use the secrets its grid-hub wrote (--grid-secrets)`);
  let text;
  try {
    text = await readBoundedText(response, MAX_REPLY_BYTES, `its reply to ${method} ${url.pathname}`);
  } catch (error) {
    throw new EnvironmentError(`the Grid at ${url.origin}: ${errorMessage(error)}; check that it is a Selenium Grid 4 router or hub`, { cause: error });
  }
  /** @type {unknown} */
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON: reported below */ }
  if (!response.ok) {
    const reason = fieldOf(fieldOf(json, 'value'), 'message') ?? text.slice(0, 300);
    throw Object.assign(new Error(`${method} ${url.pathname}: HTTP ${response.status}: ${String(reason).split('\n')[0]}`), { status: response.status });
  }
  return json;
}

/** @param {string} gridUrl @param {import('../lib/grid/grid-config.js').GridSecrets} secrets */
export const gridStatus = (gridUrl, secrets) => gridRequest(gridUrl, '/status', { secrets });

/**
 * Whether this grid-node's own Selenium node is registered: the node answering on its port says it is ready, and the
 * hub lists that node (by its id) up with this node's URI and label. A Selenium node started earlier on the same port
 * answers there with its own id and label, so it is never taken for this one.
 * @param {{ hubUrl: string, nodeUrl: string, label: string, secrets: import('../lib/grid/grid-config.js').GridSecrets }} options
 */
export async function nodeRegistered({ hubUrl, nodeUrl, label, secrets }) {
  // No credentials here: whatever listens on the node's port may not be this node.
  const reply = await fetch(new URL('/status', nodeUrl), { signal: AbortSignal.timeout(2000) });
  const text = await readBoundedText(reply, MAX_REPLY_BYTES, `the reply of ${nodeUrl}/status`);
  let id = null;
  try { id = readyNodeId(JSON.parse(text)); } catch { /* not JSON: not ready */ }
  if (id === null) return false;
  const origin = new URL(nodeUrl).origin;
  const nodes = gridNodes(await gridStatus(hubUrl, secrets));
  return nodes.some((node) => node.id === id && node.label === label && new URL(node.uri).origin === origin);
}

/**
 * @param {string} gridUrl @param {import('../lib/grid/grid-config.js').GridSecrets} secrets
 * @param {object} request  lib/grid/grid.js sessionRequest
 * @returns {Promise<{ id: string, capabilities: Record<string, unknown> }>}  capabilities: as the Grid answers, vendor fields
 *   included; read field by field by the caller
 */
export async function newSession(gridUrl, secrets, request) {
  const reply = await gridRequest(gridUrl, '/session', { method: 'POST', body: request, secrets, timeoutMs: NEW_SESSION_TIMEOUT_MS });
  const sessionId = fieldOf(fieldOf(reply, 'value'), 'sessionId');
  const capabilities = fieldOf(fieldOf(reply, 'value'), 'capabilities');
  if (typeof sessionId !== 'string' || !capabilities) throw new Error('the Grid\'s new-session reply has no sessionId and capabilities');
  return { id: sessionId, capabilities: isRecord(capabilities) ? capabilities : {} };
}

/** @param {string} gridUrl @param {import('../lib/grid/grid-config.js').GridSecrets} secrets @param {string} id */
export const deleteSession = (gridUrl, secrets, id) => gridRequest(gridUrl, `/session/${encodeURIComponent(id)}`, { method: 'DELETE', secrets });

/**
 * A WebDriver command now and then: the node kills a session idle for its session timeout (short, so that a killed
 * orchestrator leaves no browser for long), and the call's CDP traffic does not count as activity.
 * @param {string} gridUrl @param {import('../lib/grid/grid-config.js').GridSecrets} secrets @param {string} id
 */
export const touchSession = (gridUrl, secrets, id) => gridRequest(gridUrl, `/session/${encodeURIComponent(id)}/window`, { secrets });

/** The first element of an array (an AggregateError's errors), else undefined. @param {unknown} list @returns {unknown} */
function firstOf(list) {
  return Array.isArray(list) ? list[0] : undefined;
}
