// The TOML files grid-hub and grid-node give Selenium Grid (`--config`): the secrets go there, in a 0600 file, and
// never on a command line, where every local user could read them in /proc/<pid>/cmdline.

/** The event bus listens on the two ports below the hub's, as the Grid's defaults do (4442, 4443 under 4444). @param {number} hubPort */
export const eventPorts = (hubPort) => ({ publish: hubPort - 2, subscribe: hubPort - 1 });

/** How often the hub checks its nodes, in seconds. */
export const HEALTHCHECK_S = 5;

/** A TOML basic string (JSON's escapes are TOML's). @param {string} value */
const str = (value) => JSON.stringify(value);

/**
 * @typedef {{ registrationSecret: string, username: string, password: string }} GridSecrets
 */

/**
 * @param {{ host: string, port: number, secrets: GridSecrets }} options
 */
export function hubConfig({ host, port, secrets }) {
  const events = eventPorts(port);
  return [
    '[server]', `host = ${str(host)}`, `port = ${port}`, `registration-secret = ${str(secrets.registrationSecret)}`, '',
    '[router]', `username = ${str(secrets.username)}`, `password = ${str(secrets.password)}`, '',
    '[events]', `publish = ${str(`tcp://${host}:${events.publish}`)}`, `subscribe = ${str(`tcp://${host}:${events.subscribe}`)}`, 'bind = true', '',
    // A dead node and its sessions leave the hub within seconds, not the default 2 minutes; a request no node can
    // take is refused at once instead of waiting in the queue.
    '[distributor]', `healthcheck-interval = ${HEALTHCHECK_S}`, 'purge-nodes-interval = 10', 'reject-unsupported-caps = true', '',
    '[sessionqueue]', 'session-request-timeout = 60', '',
  ].join('\n');
}

/**
 * A node whose only slots are Chrome on the system Chromium, with our stereotype; sessions idle for sessionTimeoutS are
 * killed by the node, so a killed orchestrator leaves no browser behind for longer.
 * @param {{ hubUrl: string, host: string, port: number, registrationSecret: string, maxSessions: number,
 *   sessionTimeoutS: number, driverPath: string, stereotype: object, label: string }} options
 */
export function nodeConfig({ hubUrl, host, port, registrationSecret, maxSessions, sessionTimeoutS, driverPath, stereotype, label }) {
  const hub = new URL(hubUrl);
  const events = eventPorts(Number(hub.port) || (hub.protocol === 'https:' ? 443 : 80));
  return [
    '[server]', `host = ${str(host)}`, `port = ${port}`, `registration-secret = ${str(registrationSecret)}`, '',
    '[events]', `publish = ${str(`tcp://${hub.hostname}:${events.publish}`)}`, `subscribe = ${str(`tcp://${hub.hostname}:${events.subscribe}`)}`, '',
    '[node]', `grid-url = ${str(hub.origin)}`, 'detect-drivers = false', `max-sessions = ${maxSessions}`, 'override-max-sessions = true',
    `session-timeout = ${sessionTimeoutS}`, 'heartbeat-period = 5', '',
    '[[node.driver-configuration]]', `display-name = ${str(`webrtc-testbed ${label}`)}`, `webdriver-executable = ${str(driverPath)}`,
    `max-sessions = ${maxSessions}`, `stereotype = ${str(JSON.stringify(stereotype))}`, '',
  ].join('\n');
}
