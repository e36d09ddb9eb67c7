// LiveKit 1.9 behind the SFU contract (sfu/contract.js): livekit-server built by `npm run setup` (./server.js), a room
// per run created through its RoomService (./room-service.js), one access token per peer (./token.js). The pages speak
// LiveKit's own protocol with livekit-client (client-app/livekit-session.js), so no bridge carries their
// descriptions, and LiveKit picks each subscriber's layer itself (its stream allocator; dynacast pauses layers nobody
// receives): the same scenario on Janus and LiveKit compares the harness's layer choice with LiveKit's. Load
// participants join by themselves too (sfu/load-peer -join livekit), each with a token of its own.
import { fileURLToPath } from 'node:url';
import { accessToken } from './token.js';
import { createRoom, deleteRoom } from './room-service.js';
import { startLivekit } from './server.js';

/** The URL path the signaling server serves livekit-client's browser bundle at (client-app/livekit-session.js imports it). */
export const LIVEKIT_CLIENT_PATH = '/vendor/livekit-client.esm.mjs';
/** livekit-client's self-contained ES module build, from npm (its `import` export). */
const livekitClientBundle = () => fileURLToPath(import.meta.resolve('livekit-client'));

/** @type {import('../contract.js').SfuBackend} */
export const livekitSfu = {
  name: 'livekit',
  summary: 'LiveKit 1.9.11 (built from source by npm run setup): picks each subscriber\'s simulcast/SVC layer itself',
  capabilities: {
    simulcastCodecs: ['vp8', 'h264'],
    svcCodecs: ['vp9'],
    svcModes: ['L2T3_KEY', 'L3T3_KEY'],
    layerChoice: 'sfu',
    ownStats: false,
    signalsItself: true,
    // Load participants join with LiveKit's Go SDK (sfu/load-peer -join livekit), each with a token of its own.
    loadParticipants: true,
    // rtc.tcp_port, opened when the run asks (./config.js): its passive TCP candidate carries node_ip, the address the
    // emulator steers, and a page without UDP selects it (test/e2e-sfu-ice-tcp.test.js).
    iceTcp: true,
  },
  async start({ runDir, registerCleanup, logCommand, clock, iceAddress, host, pagesAddress, publishers, iceTcp = false }) {
    const server = await startLivekit({
      runDir, registerCleanup, logCommand, clock, iceAddress: host?.address ?? iceAddress ?? '127.0.0.1', host, pagesAddress, iceTcp,
    });
    const wsUrl = server.url.replace(/^http/, 'ws');
    return {
      name: 'livekit',
      version: server.version,
      pid: server.pid,
      describe: `livekit: ${server.url}, media on ${server.iceAddress} UDP ${server.udpPort}${server.tcpPort ? ` and ICE-TCP ${server.tcpPort}` : ''} `
        + `(LiveKit ${server.version ?? 'version unknown'})`,
      close: server.close,
      async createRoom({ peers, room, load }) {
        const name = await createRoom(server, room, publishers + peers.length);
        const nowS = Date.now() / 1000;
        /** @param {string} identity @param {boolean} canSubscribe */
        const token = (identity, canSubscribe) => accessToken({
          apiKey: server.apiKey, apiSecret: server.apiSecret, identity, nowS,
          grant: { room: name, roomJoin: true, canPublish: true, canSubscribe, canPublishData: true },
        });
        const tokens = new Map(peers.map((peer) => [peer, token(peer, true)]));
        const subscribe = load !== undefined && load.subscribe !== 'none';
        const speaker = load?.speaker ?? null;
        return {
          // livekit-client picks each remote's layer from the page's request: the pages ask the thumbnails' lowest.
          pageConfig: (peer) => ({ protocol: 'livekit', url: wsUrl, token: tokens.get(peer), thumbnails: load?.browsersReceive === 'thumbnail' }),
          ...(load ? {
            addLoadParticipant: (/** @type {string} */ loadName) => ({ protocol: 'livekit', url: wsUrl, token: token(loadName, subscribe), subscribe, speaker }),
          } : {}),
          pageFiles: { [LIVEKIT_CLIENT_PATH]: livekitClientBundle() },
          signalingBridge: null,
          sampler: null,
          close: () => deleteRoom(server, name).catch(() => {}),
        };
      },
    };
  },
};
