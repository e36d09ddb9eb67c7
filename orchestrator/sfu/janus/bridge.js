/**
 * The pages talk only to our signaling server; this bridge speaks Janus's HTTP API for them. Per peer it holds one
 * Janus session with a publisher handle (the page's offer to SFU_NODE joins and publishes; Janus's answer goes back
 * as an answer from SFU_NODE) and one subscriber handle per other publisher (Janus's offer goes to the page as an
 * offer from that peer; the page's answer starts the subscription). Every candidate crosses the emulator both ways:
 * the pages' trickled ones towards SFU_NODE, and Janus's, which come inside its SDP, towards the page.
 */
import { HarnessError, errorMessage } from '../../lib/system/errors.js';
import { SFU_NODE } from '../../lib/network/topology.js';
import { janusPost } from './janus-api.js';
import { rewriteSdpCandidates } from './sdp.js';

/** Janus answers a long poll within 30 s, with a keepalive when nothing happened. */
const POLL_TIMEOUT_MS = 40_000;
/** A VideoRoom request's asynchronous answer (join, publish, subscribe, start): normally well under a second. */
const EVENT_TIMEOUT_MS = 15_000;
const VIDEOROOM = 'janus.plugin.videoroom';

/**
 * @typedef {import('./sdp.js').CandidateInit} CandidateInit
 * @typedef {{from: string, type: 'offer'|'answer'|'candidate', to: string, sdp?: string, candidate?: CandidateInit}} PageMessage
 * @callback EmulatorRewrite  the emulator's rewriteCandidate
 * @param {{from: string, to: string, candidate: CandidateInit}} message
 * @returns {Promise<CandidateInit|null>}
 * @typedef {{peer: string, feed: string, role: 'publisher'|'subscriber'}} HandleOwner
 *   peer: the page at the handle's other end; feed: whose published stream it carries (the peer itself for a publisher)
 */

/**
 * @template T
 * @returns {{promise: Promise<T>, resolve: (value: T) => void}}
 */
function deferred() {
  /** @type {(value: T) => void} */
  let resolve = () => {};
  const promise = new Promise((done) => { resolve = done; });
  return { promise, resolve };
}

/**
 * The call's Janus sessions (one per peer, opened on first use) and handles (one per peer and remote, its URL
 * awaited by whoever needs it first), with the page and feed each handle serves.
 * @param {object} options
 * @param {string} options.apiUrl  @param {string} options.apiSecret
 * @param {(peer: string, event: any) => void} options.onEvent  an event no request waits for (any: Janus's JSON has no published type)
 * @param {(error: Error) => void} options.onError  a session's long poll failed
 */
function janusHandles({ apiUrl, apiSecret, onEvent, onError }) {
  /** @type {Map<string, Promise<JanusSession>>} */
  const sessions = new Map();
  /** @type {Map<string, ReturnType<typeof deferred<string>>>} "peer\nremote" → the handle's URL */
  const handles = new Map();
  /** @type {Map<number, HandleOwner>} every handle's id → the page at its other end and the feed it carries */
  const owners = new Map();

  /** @param {string} peer */
  const sessionOf = (peer) => {
    let session = sessions.get(peer);
    if (!session) {
      session = openSession(apiUrl, apiSecret, { onEvent: (event) => onEvent(peer, event), onError });
      sessions.set(peer, session);
    }
    return session;
  };
  /** @param {string} peer @param {string} remote SFU_NODE for the publisher handle */
  const handleOf = (peer, remote) => {
    const key = `${peer}\n${remote}`;
    let handle = handles.get(key);
    if (!handle) {
      handle = deferred();
      handles.set(key, handle);
    }
    return handle;
  };

  /**
   * Attaches a handle for `owner` and uses it. Janus sets up ICE (an RTP port) for an offer before VideoRoom accepts
   * it, so a handle whose use fails is detached: refused requests hold neither handles nor ports.
   * @template T
   * @param {HandleOwner} owner @param {string} remote  SFU_NODE for the publisher handle
   * @param {(session: JanusSession, handleUrl: string, id: number) => Promise<T>} use
   * @returns {Promise<T>}
   */
  async function withHandle(owner, remote, use) {
    const session = await sessionOf(owner.peer);
    const { url: handleUrl, id } = await session.attach();
    owners.set(id, owner);
    handleOf(owner.peer, remote).resolve(handleUrl);
    try {
      return await use(session, handleUrl, id);
    } catch (error) {
      owners.delete(id);
      // The refusal is what the page and the run need to see; a detach that fails too means Janus itself is gone.
      await session.detach(handleUrl).catch(() => {});
      throw error;
    }
  }

  /** Stops the long polls and destroys the sessions (Janus stopping would end them too). */
  const closeAll = () => Promise.all([...sessions.values()].map((session) => session.then((s) => s.close(), () => {})));

  return { sessionOf, handleOf, withHandle, owners, closeAll };
}

/**
 * SDPs with their candidates moved onto the emulator, each rewritten or dropped so no media bypasses the links: Janus's
 * towards a peer (relayedSdp), a shaped load participant's towards Janus (loadSdp: it puts its candidates in its SDPs,
 * as it does not trickle); a direct (unshaped) load participant's and Janus's for it stay as they are.
 * @param {EmulatorRewrite} rewriteCandidate @param {Set<string>} loadNames @param {Set<string>} direct
 */
function sdpRewriters(rewriteCandidate, loadNames, direct) {
  /** @param {string} sdp @param {string} from @param {string} to @param {string} whose */
  const rewrite = async (sdp, from, to, whose) => {
    const rewritten = await rewriteSdpCandidates(sdp, (candidate) => rewriteCandidate({ from, to, candidate }));
    if (rewritten.kept === 0) throw new HarnessError(`${whose} has no candidate the emulator can relay (${rewritten.dropped} dropped)`);
    return rewritten.sdp;
  };
  return {
    /** @param {string} peer @param {string} sdp */
    relayedSdp: async (peer, sdp) => (direct.has(peer) ? sdp : rewrite(sdp, SFU_NODE, peer, `Janus's SDP for ${peer}`)),
    /** @param {string} peer @param {string} sdp */
    loadSdp: async (peer, sdp) => (!loadNames.has(peer) || direct.has(peer) ? sdp : rewrite(sdp, peer, SFU_NODE, `${peer}'s SDP`)),
  };
}

/**
 * Who receives what in a room with load participants: the publishers each subscribes to (a page every other, a load
 * participant as the room says), and whether a page's subscription to a load participant is a thumbnail.
 * @param {string[]} peers @param {import('../contract.js').LoadRoom} [load]
 */
function loadRouting(peers, load) {
  const loadNames = new Set(load?.names ?? []);
  return {
    loadNames,
    /** @param {string} peer */
    feedsOf: (peer) => {
      const others = peers.filter((other) => other !== peer);
      if (!loadNames.has(peer) || load?.subscribe === 'all') return others;
      return load?.subscribe === 'speaker' ? others.filter((other) => other === load.speaker) : [];
    },
    /** @param {string} peer @param {string} remote */
    thumbnail: (peer, remote) => load?.browsersReceive === 'thumbnail' && loadNames.has(remote) && !loadNames.has(peer),
  };
}

/**
 * @param {object} options
 * @param {string} options.apiUrl   the Janus API over HTTP
 * @param {string} options.apiSecret  what Janus demands in every API request
 * @param {number} options.room     a VideoRoom room created for the run
 * @param {string[]} options.peers
 * @param {(peer: string, message: object) => void} options.send  delivers a message to a page
 * @param {EmulatorRewrite} options.rewriteCandidate
 * @param {(error: Error) => void} options.onError  a failure outside a page's request (a subscription, the long poll)
 * @param {(line: string) => void} [options.log]
 * @param {import('../contract.js').LoadRoom} [options.load]  load participants among `peers`: shaped, their
 *   descriptions' candidates (in their SDPs: they do not trickle) and Janus's for them are rewritten as a page's are;
 *   unshaped, their media reaches Janus directly; they subscribe to nothing, the speaker or every other publisher; with
 *   browsersReceive `thumbnail` each page's subscription to one is switched to its lowest layer as it starts
 */
export function createSfuBridge({ apiUrl, apiSecret, room, peers, send, rewriteCandidate, onError, log = () => {}, load }) {
  const { loadNames, feedsOf, thumbnail } = loadRouting(peers, load);
  const direct = new Set(load?.shaped ? [] : loadNames);
  // Fixed feed ids: a subscriber names its publisher's feed without waiting for the publisher's join answer.
  const feedIds = new Map(peers.map((peer, index) => [peer, index + 1]));
  const published = new Map(peers.map((peer) => [peer, /** @type {ReturnType<typeof deferred<void>>} */ (deferred())]));
  let closed = false;
  /** @type {Map<string, number>} peer → its publisher handle's id */
  const publisherHandles = new Map();
  /** @type {Set<string>} the peers whose (one) offer to SFU_NODE went to Janus */
  const offered = new Set();
  /** @type {Map<string, string>} "peer\nremote" → the mid of the video stream of peer's subscription to remote */
  const videoMids = new Map();
  const { sessionOf, handleOf, withHandle, owners, closeAll } = janusHandles({
    apiUrl, apiSecret, onEvent: onJanusEvent, onError: (error) => !closed && onError(error),
  });

  const { relayedSdp, loadSdp } = sdpRewriters(rewriteCandidate, loadNames, direct);

  /**
   * Janus accepts subscribers to a feed only once the publisher's media is up (`webrtcup`).
   * @param {string} peer @param {any} event  any: Janus's JSON has no published type
   */
  function onJanusEvent(peer, event) {
    log(`janus ${peer}: ${describeEvent(event)}`);
    if (event?.janus === 'webrtcup' && event.sender === publisherHandles.get(peer)) published.get(peer)?.resolve();
  }

  /** @param {string} peer @param {string} offer */
  async function publish(peer, offer) {
    await withHandle({ peer, feed: peer, role: 'publisher' }, SFU_NODE, async (session, handleUrl, id) => {
      publisherHandles.set(peer, id);
      const { jsep } = await session.request(handleUrl, {
        request: 'joinandconfigure', ptype: 'publisher', room, id: feedIds.get(peer), display: peer,
      }, { type: 'offer', sdp: offer });
      if (jsep?.type !== 'answer') throw new HarnessError(`Janus answered ${peer}'s publish without an SDP answer`);
      send(peer, { type: 'answer', from: SFU_NODE, sdp: await relayedSdp(peer, jsep.sdp) });
    });
    // The page is joined (it offered): it can take a subscription to each publisher once that one's media is up.
    for (const remote of feedsOf(peer)) {
      published.get(remote)?.promise.then(() => subscribe(peer, remote)).catch((error) => !closed && onError(error));
    }
  }

  /** @param {string} peer @param {string} remote */
  async function subscribe(peer, remote) {
    if (closed) return;
    await withHandle({ peer, feed: remote, role: 'subscriber' }, remote, async (session, handleUrl) => {
      const { data, jsep } = await session.request(handleUrl, { request: 'join', ptype: 'subscriber', room, streams: [{ feed: feedIds.get(remote) }] });
      if (jsep?.type !== 'offer') throw new HarnessError(`Janus gave ${peer}'s subscription to ${remote} no SDP offer`);
      const mid = videoMid(data);
      if (mid !== null) videoMids.set(`${peer}\n${remote}`, mid);
      send(peer, { type: 'offer', from: remote, sdp: await relayedSdp(peer, jsep.sdp) });
    });
  }

  /**
   * Asks Janus to forward `remote`'s layer to `peer`: for simulcast `substream` (0 the lowest) and `temporal`, for SVC
   * `spatial_layer` and `temporal_layer` (VideoRoom applies those that fit the publisher's stream). Resolves once
   * VideoRoom accepted the request; the switch itself follows at the next keyframe of that layer.
   * @param {string} peer @param {string} remote @param {import('../contract.js').LayerRequest} layer
   */
  async function selectLayer(peer, remote, { spatial, temporal }) {
    const mid = videoMids.get(`${peer}\n${remote}`);
    if (mid === undefined) throw new HarnessError(`${peer} has no subscription to ${remote}'s video yet, so no layer can be chosen for it`);
    const session = await sessionOf(peer);
    await session.request(await handleOf(peer, remote).promise, {
      request: 'configure', streams: [{ mid, substream: spatial, temporal, spatial_layer: spatial, temporal_layer: temporal }],
    });
  }

  return {
    selectLayer,
    /**
     * Whose a Janus handle is (handle_info does not name a subscriber's page): undefined for a handle not of this call.
     * @param {number} handleId
     * @returns {HandleOwner|undefined}
     */
    handleOwner: (handleId) => owners.get(handleId),
    /**
     * A page's offer, answer or candidate (the signaling server validated its shape and sender).
     * @param {PageMessage} message
     */
    async handle({ from, type, to, sdp, candidate }) {
      if (to !== SFU_NODE && !(peers.includes(to) && to !== from)) throw new HarnessError(`"${to}" is neither ${SFU_NODE} nor another peer of this call`);
      if (type === 'candidate' && candidate) {
        const relayed = await rewriteCandidate({ from, to: SFU_NODE, candidate });
        if (!relayed) return;
        const handleUrl = await handleOf(from, to).promise;
        await janusPost(handleUrl, { janus: 'trickle', candidate: relayed }, apiSecret);
      } else if (type === 'offer' && to === SFU_NODE && sdp) {
        // A page publishes once; every further offer would cost Janus a handle and an RTP port until it refuses it.
        if (offered.has(from)) throw new HarnessError(`${from} already offered to ${SFU_NODE}: a page publishes once, so this offer never reaches Janus`);
        offered.add(from);
        await publish(from, await loadSdp(from, sdp));
      } else if (type === 'answer' && to !== SFU_NODE && sdp) {
        const session = await sessionOf(from);
        await session.request(await handleOf(from, to).promise, { request: 'start' }, { type: 'answer', sdp: await loadSdp(from, sdp) });
        if (thumbnail(from, to)) await selectLayer(from, to, { spatial: 0, temporal: 2 });
      } else {
        throw new HarnessError(`in an SFU call a page offers to ${SFU_NODE} and answers the other peers, not ${type} to ${to}`);
      }
    },
    /** Stops the long polls and destroys the sessions (Janus stopping would end them too). */
    async close() {
      closed = true;
      await closeAll();
    },
  };
}

/**
 * @typedef {{request: string, [field: string]: unknown}} VideoRoomRequest  a VideoRoom request's body
 * @typedef {object} JanusSession
 * @property {() => Promise<{url: string, id: number}>} attach  a new VideoRoom handle
 * any: Janus's JSON answers, whose shape depends on the request; each caller checks what it reads
 * @property {(handleUrl: string, body: VideoRoomRequest, jsep?: {type: string, sdp: string}) => Promise<{data: any, jsep: any}>} request
 *   (any: Janus's JSON has no published type)
 *   a VideoRoom request and its (asynchronous) answer; a plugin error throws
 * @property {(handleUrl: string) => Promise<void>} detach  frees the handle and its ICE agent (its RTP port)
 * @property {() => Promise<void>} close
 */

/**
 * A Janus session with its long poll, which also keeps it alive.
 * @param {string} apiUrl @param {string} apiSecret
 * any: Janus's JSON events, whose shape depends on the plugin; the handler checks what it reads
 * @param {{onEvent: (event: any) => void, onError: (error: Error) => void}} handlers  onEvent: events no request waits for
 *   (any: Janus's JSON has no published type)
 * @returns {Promise<JanusSession>}
 */
async function openSession(apiUrl, apiSecret, { onEvent, onError }) {
  const sessionUrl = `${apiUrl}/${(await janusPost(apiUrl, { janus: 'create' }, apiSecret)).data.id}`;
  /** @type {Map<string, (event: any) => void>} any: Janus's JSON has no published type */
  const waiting = new Map();
  /** Answers that arrived before their request's ack was read. */
  const early = new Map();
  const stop = new AbortController();

  const poll = async () => {
    while (!stop.signal.aborted) {
      /** @type {any} any: Janus's JSON has no published type */
      let events;
      try {
        const response = await fetch(`${sessionUrl}?maxev=10&apisecret=${apiSecret}`, { signal: AbortSignal.any([stop.signal, AbortSignal.timeout(POLL_TIMEOUT_MS)]) });
        events = await response.json();
      } catch (error) {
        if (!stop.signal.aborted) onError(new HarnessError(`Janus long poll of ${sessionUrl} failed: ${errorMessage(error)}`));
        return;
      }
      for (const event of [events].flat()) {
        if (event?.janus === 'keepalive') continue;
        const waiter = event?.transaction && waiting.get(event.transaction);
        if (waiter) waiter(event);
        else if (event?.transaction && event.janus === 'event') early.set(event.transaction, event);
        else onEvent(event);
      }
    }
  };
  poll();

  return {
    async attach() {
      const { id } = (await janusPost(sessionUrl, { janus: 'attach', plugin: VIDEOROOM }, apiSecret)).data;
      return { url: `${sessionUrl}/${id}`, id };
    },
    async request(handleUrl, body, jsep) {
      const ack = await janusPost(handleUrl, { janus: 'message', body, ...(jsep ? { jsep } : {}) }, apiSecret);
      const answer = ack.janus !== 'ack' ? ack : early.get(ack.transaction) ?? await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(ack.transaction);
          reject(new HarnessError(`Janus did not answer VideoRoom ${body.request} within ${EVENT_TIMEOUT_MS / 1000} s`));
        }, EVENT_TIMEOUT_MS);
        waiting.set(ack.transaction, (event) => {
          clearTimeout(timer);
          waiting.delete(ack.transaction);
          resolve(event);
        });
      });
      early.delete(ack.transaction);
      const data = answer.plugindata?.data;
      if (!data || data.error) throw new HarnessError(`Janus VideoRoom refused ${body.request}: ${data?.error ?? JSON.stringify(answer).slice(0, 200)} (code ${data?.error_code ?? '-'})`);
      return { data, jsep: answer.jsep };
    },
    async detach(handleUrl) {
      await janusPost(handleUrl, { janus: 'detach' }, apiSecret);
    },
    async close() {
      stop.abort();
      await janusPost(sessionUrl, { janus: 'destroy' }, apiSecret).catch(() => {});
    },
  };
}

/**
 * The mid of the video stream in a subscriber's `attached` answer (Janus 1.x: `streams: [{ type, mid, … }]`), checked:
 * a short token, else null.
 * @param {any} data  any: Janus's JSON has no published type
 * @returns {string|null}
 */
function videoMid(data) {
  /** @type {any[]} any: Janus's JSON has no published type */
  const streams = Array.isArray(data?.streams) ? data.streams.slice(0, 16) : [];
  const mid = streams.find((stream) => stream?.type === 'video')?.mid;
  return typeof mid === 'string' && /^[\w-]{1,16}$/.test(mid) ? mid : null;
}

/** One line for the log. @param {any} event  any: Janus's JSON has no published type */
function describeEvent(event) {
  const detail = event?.reason ?? event?.type ?? event?.plugindata?.data?.videoroom ?? '';
  return `${event?.janus ?? 'unknown'}${detail ? ` ${detail}` : ''}${event?.sender ? ` (handle ${event.sender})` : ''}`;
}
