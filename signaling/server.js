// Tiny signaling server: serves client-app/, keeps rooms of peers, relays offer/answer/candidates between them,
// and hands the peers' stats samples and events to the orchestrator. Bad messages get an error reply; the
// connection and the server stay up.
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { WebSocketServer } from 'ws';

const clientAppDir = fileURLToPath(new URL('../client-app/', import.meta.url));
export const MAX_MESSAGE_BYTES = 64 * 1024;
const RELAYED = new Set(['offer', 'answer', 'candidate']);
const KNOWN = new Set(['join', 'stats', 'event', ...RELAYED]);

/**
 * Rewrites (or drops, by returning null) a candidate on its way from one peer to another: this is how the relay
 * emulator puts itself on the media path. When given, candidates embedded in SDP are stripped so none bypass it.
 * @callback RewriteCandidate
 * @param {{ room: string, from: string, to: string, candidate: { candidate: string, sdpMid?: string, sdpMLineIndex?: number } }} message
 * @returns {Promise<object|null>}
 */

/**
 * @param {{ host?: string, port?: number, rewriteCandidate?: RewriteCandidate }} [options]
 * @returns {Promise<{ httpUrl: string, wsUrl: string, port: number, events: EventEmitter,
 *   broadcast: (room: string, message: object) => void, close: () => Promise<void> }>}
 *   events: 'stats' (sample), 'event' (peer event), 'join' ({room, peer}), 'leave' ({room, peer}), 'protocol-error' ({peer, error})
 */
export async function startSignalingServer({ host = '127.0.0.1', port = 0, rewriteCandidate } = {}) {
  const events = new EventEmitter();
  /** @type {Map<string, Map<string, import('ws').WebSocket>>} */
  const rooms = new Map();
  const app = express();
  app.use(express.static(clientAppDir));
  const server = createServer(app);
  // Accept up to 1 MiB so oversized messages can be answered with an error instead of a closed connection.
  const wss = new WebSocketServer({ server, path: '/ws', maxPayload: 1024 * 1024 });

  const sendTo = (socket, message) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(message));

  wss.on('connection', (socket) => {
    let member = null; // { room, peer } once joined
    const fail = (error, inReplyTo) => {
      sendTo(socket, { type: 'error', error, inReplyTo });
      events.emit('protocol-error', { peer: member?.peer ?? null, error });
    };

    socket.on('message', async (data, isBinary) => {
      if (isBinary) return fail('binary messages are not supported; send JSON text');
      if (data.length > MAX_MESSAGE_BYTES) return fail(`message of ${data.length} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit`);
      let message;
      try {
        message = JSON.parse(data.toString('utf8'));
      } catch (error) {
        return fail(`malformed JSON: ${error.message}`);
      }
      if (message === null || typeof message !== 'object' || !KNOWN.has(message.type)) {
        return fail(`unknown message type ${JSON.stringify(message?.type)}; expected one of ${[...KNOWN].join(', ')}`, message?.type);
      }
      if (message.type === 'join') {
        if (typeof message.room !== 'string' || typeof message.peer !== 'string' || !message.room || !message.peer) {
          return fail('join needs string fields "room" and "peer"', 'join');
        }
        const members = rooms.get(message.room) ?? new Map();
        if (members.has(message.peer)) return fail(`peer "${message.peer}" is already in room "${message.room}"`, 'join');
        rooms.set(message.room, members);
        sendTo(socket, { type: 'joined', room: message.room, peers: [...members.keys()] });
        for (const other of members.values()) sendTo(other, { type: 'peer-joined', peer: message.peer });
        members.set(message.peer, socket);
        member = { room: message.room, peer: message.peer };
        events.emit('join', member);
        return;
      }
      // Events may come before joining: a page that cannot get its media must still be able to say so.
      if (message.type === 'event') return events.emit('event', message.event);
      if (!member) return fail(`join a room before sending "${message.type}"`, message.type);
      if (message.type === 'stats') return events.emit('stats', message.sample);

      const target = rooms.get(member.room)?.get(message.to);
      if (!target) return fail(`no peer "${message.to}" in room "${member.room}"`, message.type);
      const relayed = { ...message, from: member.peer };
      delete relayed.to;
      if (rewriteCandidate && message.type === 'candidate') {
        relayed.candidate = await rewriteCandidate({ room: member.room, from: member.peer, to: message.to, candidate: message.candidate });
        if (!relayed.candidate) return;
      }
      if (rewriteCandidate && typeof relayed.sdp === 'string') {
        relayed.sdp = relayed.sdp.split(/\r\n/).filter((line) => !line.startsWith('a=candidate:')).join('\r\n');
      }
      sendTo(target, relayed);
    });

    socket.on('close', () => {
      if (!member) return;
      const members = rooms.get(member.room);
      members?.delete(member.peer);
      if (members?.size === 0) rooms.delete(member.room);
      events.emit('leave', member);
    });
  });

  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const actualPort = server.address().port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    httpUrl: `http://${urlHost}:${actualPort}/`,
    wsUrl: `ws://${urlHost}:${actualPort}/ws`,
    port: actualPort,
    events,
    broadcast(room, message) {
      for (const socket of rooms.get(room)?.values() ?? []) sendTo(socket, message);
    },
    async close() {
      for (const socket of wss.clients) socket.terminate();
      await new Promise((resolve) => wss.close(() => resolve()));
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// `node signaling/server.js [port]` runs it standalone for manual experiments.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const signaling = await startSignalingServer({ port: Number(process.argv[2] ?? 0) });
  console.log(`signaling on ${signaling.httpUrl} (WebSocket ${signaling.wsUrl})`);
}
