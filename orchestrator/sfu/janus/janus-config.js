/**
 * Janus's configuration for one run (pure): the files of a configuration folder that loads only the VideoRoom
 * plugin and the HTTP (optionally WebSocket) transport, binds every API to one address (loopback, or the SFU
 * namespace's own on netem), gathers ICE candidates on one IPv4 address only, uses no STUN/TURN, takes RTP ports
 * from a given range and logs to a file.
 * The ICE address cannot be loopback: Janus 1.1 skips loopback interfaces when gathering, and an enforce list
 * that matches nothing silently gathers on every interface, IPv6 included.
 * Only the wanted modules are loaded because the plugin and transport folders are the run's own folders holding
 * links to the installed modules: Janus loads every module it finds in those folders.
 */
import path from 'node:path';
import { InputError } from '../../lib/system/errors.js';

export const API_BASE_PATH = '/janus';
export const ADMIN_BASE_PATH = '/admin';
export const CONFIG_FILE = 'janus.jcfg';
export const VIDEOROOM_PLUGIN = 'libjanus_videoroom.so';
export const HTTP_TRANSPORT = 'libjanus_http.so';
export const WEBSOCKET_TRANSPORT = 'libjanus_websockets.so';

/**
 * @typedef {object} JanusConfigOptions
 * @property {string} configDir    absolute: the folder the files are written to (Janus's -F)
 * @property {string} libDir       absolute: the installed Janus module folder (holding plugins/ and transports/)
 * @property {string} logFile      absolute
 * @property {string} adminSecret  letters and digits, at least 16
 * @property {string} apiSecret  letters and digits, at least 16: every Janus API request must carry it (`apisecret`)
 * @property {number} httpPort     the Janus API over HTTP
 * @property {number} adminPort    the Admin API over HTTP
 * @property {number} [wsPort]     the Janus API over WebSocket as well, when given
 * @property {{minPort: number, maxPort: number}} rtpPortRange
 * @property {string} iceAddress   IPv4 address of a non-loopback interface: the only one Janus gathers candidates on
 * @property {string} [address]    IPv4 address every API binds to (default 127.0.0.1)
 * @property {number} [debugLevel] 0-7 (default 4)
 * @property {boolean} [iceTcp]    also offer passive TCP candidates (ICE-TCP), for a peer without UDP
 *
 * @typedef {object} JanusConfig
 * @property {string[]} dirs                           folders to create, relative to configDir
 * @property {{path: string, content: string}[]} files  relative to configDir
 * @property {{path: string, target: string}[]} links   symbolic links to create, relative to configDir
 * @property {string} configFile                       absolute: Janus's -C
 */

/**
 * @param {JanusConfigOptions} options
 * @returns {JanusConfig}
 */
export function janusConfig(options) {
  const { configDir, libDir, logFile, adminSecret, apiSecret, httpPort, adminPort, wsPort, rtpPortRange, iceAddress } = options;
  const address = options.address ?? '127.0.0.1';
  const debugLevel = options.debugLevel ?? 4;
  for (const [name, value] of Object.entries({ configDir, libDir, logFile })) checkPath(name, value);
  for (const [name, secret] of Object.entries({ adminSecret, apiSecret })) {
    if (typeof secret !== 'string' || !/^[A-Za-z0-9]{16,}$/.test(secret)) {
      throw new InputError(`Janus config: ${name} must be at least 16 letters and digits`);
    }
  }
  const ports = { httpPort, adminPort, ...(wsPort === undefined ? {} : { wsPort }) };
  for (const [name, value] of Object.entries(ports)) checkPort(name, value);
  const seen = new Map();
  for (const [name, value] of Object.entries(ports)) {
    if (seen.has(value)) throw new InputError(`Janus config: ${name} and ${seen.get(value)} are both ${value}; give each API its own port`);
    seen.set(value, name);
  }
  const { minPort, maxPort } = rtpPortRange ?? {};
  checkPort('rtpPortRange.minPort', minPort);
  checkPort('rtpPortRange.maxPort', maxPort);
  // Each PeerConnection needs one port (bundle, rtcp-mux); a range too small fails calls with a vague ICE error.
  if (maxPort - minPort < 16) throw new InputError(`Janus config: rtpPortRange ${minPort}-${maxPort} is too small; give at least 16 ports`);
  for (const [name, value] of Object.entries(ports)) {
    if (value >= minPort && value <= maxPort) throw new InputError(`Janus config: ${name} ${value} lies in rtpPortRange ${minPort}-${maxPort}`);
  }
  checkIpv4('address', address);
  checkIpv4('iceAddress', iceAddress);
  if (iceAddress.startsWith('127.')) throw new InputError(`Janus config: iceAddress ${iceAddress} is loopback; Janus gathers no loopback candidates`);
  if (!Number.isInteger(debugLevel) || debugLevel < 0 || debugLevel > 7) throw new InputError('Janus config: debugLevel must be an integer 0-7');

  const transports = [HTTP_TRANSPORT, ...(wsPort === undefined ? [] : [WEBSOCKET_TRANSPORT])];
  const files = [
    {
      path: CONFIG_FILE,
      content: jcfg({
        general: {
          configs_folder: configDir,
          plugins_folder: path.join(configDir, 'plugins'),
          transports_folder: path.join(configDir, 'transports'),
          // Empty folders: no event handlers, no external loggers.
          events_folder: path.join(configDir, 'none'),
          loggers_folder: path.join(configDir, 'none'),
          log_to_stdout: false,
          log_to_file: logFile,
          debug_level: debugLevel,
          debug_timestamps: true,
          debug_colors: false,
          admin_secret: adminSecret,
          // Any local process can reach the loopback API: without the run's secret it cannot open a session in its room.
          api_secret: apiSecret,
          server_name: 'webrtc-testbed',
          // The address put in SDP c= lines (Janus otherwise picks the first interface's).
          interface: iceAddress,
        },
        media: { ipv6: false, rtp_port_range: `${minPort}-${maxPort}` },
        nat: natSection(iceAddress, options.iceTcp ?? false),
        events: { broadcast: false },
      }),
    },
    {
      path: 'janus.transport.http.jcfg',
      content: jcfg({
        general: { json: 'plain', base_path: API_BASE_PATH, http: true, port: httpPort, ip: address, https: false },
        admin: { admin_base_path: ADMIN_BASE_PATH, admin_http: true, admin_port: adminPort, admin_ip: address, admin_https: false },
      }),
    },
    ...(wsPort === undefined ? [] : [{
      path: 'janus.transport.websockets.jcfg',
      content: jcfg({
        general: { json: 'plain', ws: true, ws_port: wsPort, ws_ip: address, wss: false },
        admin: { admin_ws: false, admin_wss: false },
      }),
    }]),
    // Rooms are created per run through the API; none is predefined.
    { path: 'janus.plugin.videoroom.jcfg', content: jcfg({ general: {} }) },
  ];
  return {
    dirs: ['plugins', 'transports', 'none'],
    files,
    links: [
      { path: path.join('plugins', VIDEOROOM_PLUGIN), target: path.join(libDir, 'plugins', VIDEOROOM_PLUGIN) },
      ...transports.map((name) => ({ path: path.join('transports', name), target: path.join(libDir, 'transports', name) })),
    ],
    configFile: path.join(configDir, CONFIG_FILE),
  };
}

/**
 * ICE: candidates on one address only; with iceTcp, passive TCP ones too, which Janus offers in ICE-Lite mode only
 * (its janus.jcfg): the browser, the full agent, opens the TCP connection.
 * @param {string} iceAddress @param {boolean} iceTcp
 */
const natSection = (iceAddress, iceTcp) => ({
  nice_debug: false, ice_enforce_list: iceAddress, ignore_mdns: true, ...(iceTcp ? { ice_lite: true, ice_tcp: true } : {}),
});

/**
 * Renders sections in Janus's libconfig syntax.
 * @param {Record<string, Record<string, string|number|boolean>>} sections
 */
export function jcfg(sections) {
  return Object.entries(sections).map(([section, settings]) => {
    const lines = Object.entries(settings).map(([key, value]) => `\t${key} = ${typeof value === 'string' ? JSON.stringify(value) : value}`);
    return `${section}: {\n${lines.map((line) => `${line}\n`).join('')}}\n`;
  }).join('');
}

/** @param {string} name @param {unknown} value */
function checkPort(name, value) {
  if (!Number.isInteger(value) || /** @type {number} */ (value) < 1 || /** @type {number} */ (value) > 65535) {
    throw new InputError(`Janus config: ${name} must be a port number 1-65535, not ${JSON.stringify(value)}`);
  }
}

/** @param {string} name @param {unknown} value */
function checkIpv4(name, value) {
  if (typeof value !== 'string' || !/^(\d{1,3})(\.\d{1,3}){3}$/.test(value) || value.split('.').some((part) => Number(part) > 255)) {
    throw new InputError(`Janus config: ${name} ${JSON.stringify(value)} is not an IPv4 address`);
  }
}

/** @param {string} name @param {unknown} value */
function checkPath(name, value) {
  // libconfig strings take escapes, but a path with quotes or control characters is a mistake, not a need.
  if (typeof value !== 'string' || !path.isAbsolute(value) || /["\\\p{Cc}]/u.test(value)) {
    throw new InputError(`Janus config: ${name} must be an absolute path without quotes, backslashes or control characters, not ${JSON.stringify(value)}`);
  }
}
