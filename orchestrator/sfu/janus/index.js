// Janus 1.1 (VideoRoom) behind the SFU contract (sfu/contract.js): the process (./janus.js), a room per run
// (./janus-api.js), the bridge that speaks Janus's HTTP API for the pages (./bridge.js) and the Admin API sampler
// (./admin-sampler.js). Outside sfu/ only this backend, through the registry (sfu/index.js), is reached.
import { createAdminSampler } from './admin-sampler.js';
import { createSfuBridge } from './bridge.js';
import { checkedVersion } from '../contract.js';
import { createVideoRoom } from './janus-api.js';
import { startJanus } from './janus.js';
import { SFU_NODE } from '../../lib/network/topology.js';

/** The run's own Janus holds one room, so any id does. */
const ROOM_ID = 1;
const INFO_TIMEOUT_MS = 2_000;

/**
 * Janus's version as its `info` answers it (`version_string`, e.g. "1.1.2"), checked: null when it says nothing usable.
 * @param {string} apiUrl @returns {Promise<string|null>}
 */
async function janusVersion(apiUrl) {
  try {
    const response = await fetch(`${apiUrl}/info`, { signal: AbortSignal.timeout(INFO_TIMEOUT_MS) });
    // Bounded: a version needs a few bytes, and the answer is not trusted further than its one field.
    const text = (await response.text()).slice(0, 64 * 1024);
    return checkedVersion(JSON.parse(text)?.version_string);
  } catch {
    return null;
  }
}

/** @type {import('../contract.js').SfuBackend} */
export const janusSfu = {
  name: 'janus',
  summary: 'Janus 1.1 VideoRoom (Debian package janus): the harness picks each subscriber\'s simulcast/SVC layer',
  capabilities: {
    // VideoRoom forwards VP8 and H.264 simulcast and VP9 SVC (AV1 SVC needs the dependency descriptor, off by default).
    simulcastCodecs: ['vp8', 'h264'],
    svcCodecs: ['vp9'],
    svcModes: ['L1T2', 'L1T3', 'L2T2', 'L2T3', 'L3T3', 'L3T3_KEY'],
    layerChoice: 'harness',
    ownStats: true,
    signalsItself: false,
    loadParticipants: true,
    iceTcp: true,
  },
  async start({ runDir, registerCleanup, logCommand, clock, iceAddress, host, publishers, iceTcp = false }) {
    const janus = await startJanus({ runDir, registerCleanup, logCommand, clock, iceTcp, ...(host ? { host } : { iceAddress }) });
    const version = await janusVersion(janus.apiUrl);
    return {
      name: 'janus',
      version,
      pid: janus.pid,
      // The tests read this line as it was before the contract: `janus: <api>, media on <address>, room <id>`.
      describe: `janus: ${janus.apiUrl}, media on ${janus.iceAddress}, room ${ROOM_ID} (Janus ${version ?? 'version unknown'})`,
      close: janus.close,
      async createRoom({ peers: browsers, videoCodecs, send: sendToPage, rewriteCandidate, onError, onWarning, log, load }) {
        // Load participants publish beside the pages: their feeds follow the pages', and Janus's messages for them go
        // to their processes instead of the signaling server.
        const peers = [...browsers, ...(load?.names ?? [])];
        /** @type {Map<string, (message: import('../contract.js').LoadDescription) => void>} */
        const loadRoutes = new Map();
        /** @param {string} peer @param {any} message  the bridge's offer or answer (any: as the pages get it) */
        const send = (peer, message) => {
          const deliver = loadRoutes.get(peer);
          if (deliver) deliver({ type: message.type, pc: message.from === SFU_NODE ? 'pub' : message.from, sdp: message.sdp });
          else sendToPage(peer, message);
        };
        // VP8 stays first for the peers that publish one encoding, as before; H.264 and VP9 join it when asked. VP9 SVC
        // alone makes a VP9-only room with video_svc, which Janus 1.1.3 needs to parse SVC and forward each subscriber
        // the layers it asks; a peer publishing one encoding then sends VP9. Janus 1.1.2 stores video_svc but never
        // applies it (only remote publishers' streams are parsed as SVC), so it forwards every layer: the reference
        // notes of scenarios/sfu-svc-3.json give the evidence.
        const svc = videoCodecs.length === 1 && videoCodecs[0] === 'vp9';
        const codecs = svc ? ['vp9'] : videoCodecs.length ? [...new Set(['vp8', ...videoCodecs])] : [];
        await createVideoRoom(janus, { room: ROOM_ID, publishers, videoCodecs: codecs, videoSvc: svc });
        const bridge = createSfuBridge({
          apiUrl: janus.apiUrl, apiSecret: janus.apiSecret, room: ROOM_ID, peers, rewriteCandidate, send, onError, log,
          ...(load ? { load } : {}),
        });
        return {
          pageConfig: () => ({ protocol: 'signaling' }),
          signalingBridge: bridge.handle,
          sampler: createAdminSampler({ admin: janus, ownerOf: bridge.handleOwner, onWarning: (message) => onWarning('janus-admin', message) }),
          selectLayer: bridge.selectLayer,
          addLoadParticipant(name, deliver) {
            loadRoutes.set(name, deliver);
            return { protocol: 'descriptions', take: ({ type, pc, sdp }) => bridge.handle({ from: name, type, to: pc === 'pub' ? SFU_NODE : pc, sdp }) };
          },
          close: () => bridge.close(),
        };
      },
    };
  },
};
