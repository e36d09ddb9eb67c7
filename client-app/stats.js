// Pure logic shared by the browser page and Node tests: getStats() report -> cumulative snapshot -> per-interval values.
// Standard webrtc-stats only (https://www.w3.org/TR/webrtc-stats/); no legacy goog* fields.

const sumBy = (items, field) => items.reduce((total, item) => total + (Number(item[field]) || 0), 0);

/**
 * Reduce one RTCStatsReport (as an array of stats objects) to the cumulative counters the harness needs.
 * @param {Array<Record<string, any>>} stats
 * @returns {Snapshot}
 *
 * @typedef {{ timestampMs: number, video: MediaCounters, audio: MediaCounters,
 *   rtt: { totalS: number, measurements: number },
 *   candidatePair: { currentRttMs: number|null, availableOutgoingKbps: number|null } }} Snapshot
 * @typedef {{ out: Record<string, any>|null, in: Record<string, any>|null }} MediaCounters
 */
export function snapshotFromStats(stats) {
  const byType = (type, kind) => stats.filter((s) => s.type === type && (kind === undefined || s.kind === kind));
  const byId = new Map(stats.map((s) => [s.id, s]));
  const timestampMs = Math.max(0, ...stats.map((s) => s.timestamp || 0));

  const media = (kind) => {
    const outbound = byType('outbound-rtp', kind);
    const inbound = byType('inbound-rtp', kind);
    const codecOf = (list) => {
      const codec = list.map((s) => byId.get(s.codecId)).find(Boolean);
      return codec ? String(codec.mimeType).replace(/^(audio|video)\//i, '') : null;
    };
    const last = (list, field) => list.map((s) => s[field]).filter((v) => v !== undefined).at(-1) ?? null;
    const limitationDurations = {};
    for (const s of outbound) {
      for (const [reason, seconds] of Object.entries(s.qualityLimitationDurations ?? {})) {
        limitationDurations[reason] = (limitationDurations[reason] ?? 0) + seconds;
      }
    }
    return {
      out: outbound.length === 0 ? null : {
        bytes: sumBy(outbound, 'bytesSent'),
        frames: sumBy(outbound, 'framesSent'),
        width: last(outbound, 'frameWidth'),
        height: last(outbound, 'frameHeight'),
        fps: last(outbound, 'framesPerSecond'),
        qualityLimitationReason: last(outbound, 'qualityLimitationReason'),
        qualityLimitationDurations: limitationDurations,
        codec: codecOf(outbound),
      },
      in: inbound.length === 0 ? null : {
        bytes: sumBy(inbound, 'bytesReceived'),
        packetsReceived: sumBy(inbound, 'packetsReceived'),
        packetsLost: sumBy(inbound, 'packetsLost'),
        framesDecoded: sumBy(inbound, 'framesDecoded'),
        width: last(inbound, 'frameWidth'),
        height: last(inbound, 'frameHeight'),
        jitterS: last(inbound, 'jitter'),
        jitterBufferDelayS: sumBy(inbound, 'jitterBufferDelay'),
        jitterBufferEmittedCount: sumBy(inbound, 'jitterBufferEmittedCount'),
        retransmittedPacketsReceived: sumBy(inbound, 'retransmittedPacketsReceived'),
        fecPacketsReceived: sumBy(inbound, 'fecPacketsReceived'),
        nackCount: sumBy(inbound, 'nackCount'),
        pliCount: sumBy(inbound, 'pliCount'),
        freezeCount: sumBy(inbound, 'freezeCount'),
        totalFreezesDurationS: sumBy(inbound, 'totalFreezesDuration'),
        codec: codecOf(inbound),
      },
    };
  };

  const remoteInbound = byType('remote-inbound-rtp');
  const transport = byType('transport')[0];
  const selectedPair = byId.get(transport?.selectedCandidatePairId)
    ?? byType('candidate-pair').find((p) => p.nominated && p.state === 'succeeded');
  return {
    timestampMs,
    video: media('video'),
    audio: media('audio'),
    rtt: { totalS: sumBy(remoteInbound, 'totalRoundTripTime'), measurements: sumBy(remoteInbound, 'roundTripTimeMeasurements') },
    candidatePair: {
      currentRttMs: selectedPair?.currentRoundTripTime === undefined ? null : selectedPair.currentRoundTripTime * 1000,
      availableOutgoingKbps: selectedPair?.availableOutgoingBitrate === undefined ? null : selectedPair.availableOutgoingBitrate / 1000,
    },
  };
}

const round = (value, digits = 3) => (value === null || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));
const kbps = (bytesDelta, intervalS) => round((bytesDelta * 8) / 1000 / intervalS);

/**
 * Loss over an interval from the receiver's counters: lost / (received + lost), in percent (A12 eq. 1). Chromium
 * counts a packet that a retransmission (RTX) later repaired as lost (RFC 3550's receiver-report loss), so this is
 * the loss before repair. afterRetransmission: what is left once every retransmission received in the interval
 * filled a gap, an estimate: a packet retransmitted twice counts twice, and a repair arriving an interval after its
 * loss leaves the first interval too high (never below 0).
 * @param {Record<string, any>|null} prevIn  inbound counters: packetsReceived, packetsLost, retransmittedPacketsReceived
 * @param {Record<string, any>|null} curIn
 * @param {{ afterRetransmission?: boolean }} [options]
 */
export function intervalLossPct(prevIn, curIn, { afterRetransmission = false } = {}) {
  if (!prevIn || !curIn) return null;
  const received = curIn.packetsReceived - prevIn.packetsReceived;
  const lost = curIn.packetsLost - prevIn.packetsLost;
  if (received + lost <= 0) return null;
  const repaired = afterRetransmission ? (curIn.retransmittedPacketsReceived ?? 0) - (prevIn.retransmittedPacketsReceived ?? 0) : 0;
  return round(Math.max(0, (100 * (lost - repaired)) / (received + lost)));
}

/** The reason that limited the sender longest during the interval (falls back to the current reason). */
function dominantLimitation(prevOut, curOut) {
  let best = null;
  let bestS = 0;
  for (const [reason, seconds] of Object.entries(curOut.qualityLimitationDurations)) {
    const deltaS = seconds - (prevOut?.qualityLimitationDurations?.[reason] ?? 0);
    if (deltaS > bestS) [best, bestS] = [reason, deltaS];
  }
  return best ?? curOut.qualityLimitationReason;
}

/**
 * Per-interval values between two snapshots of the same peer connection (the timeline entry minus t/peer/remote).
 * @param {Snapshot} prev @param {Snapshot} cur
 */
export function intervalMetrics(prev, cur) {
  const intervalS = (cur.timestampMs - prev.timestampMs) / 1000;
  if (!(intervalS > 0)) throw new RangeError(`stats timestamps must increase (got ${prev.timestampMs} then ${cur.timestampMs})`);
  const delta = (kind, dir, field) => {
    const a = prev[kind][dir];
    const b = cur[kind][dir];
    return a && b ? b[field] - a[field] : null;
  };
  const rate = (kind, dir) => {
    const bytes = delta(kind, dir, 'bytes');
    // A stream that appears mid-interval counts from zero.
    if (bytes === null) return cur[kind][dir] ? kbps(cur[kind][dir].bytes, intervalS) : null;
    return kbps(bytes, intervalS);
  };
  const perSecond = (value) => (value === null ? null : round(value / intervalS, 2));
  const vOut = cur.video.out;
  const vIn = cur.video.in;

  const rttMeasurements = cur.rtt.measurements - prev.rtt.measurements;
  const rttMs = rttMeasurements > 0
    ? round((1000 * (cur.rtt.totalS - prev.rtt.totalS)) / rttMeasurements)
    : round(cur.candidatePair.currentRttMs);

  const jitterMs = (kind) => (cur[kind].in?.jitterS == null ? null : round(cur[kind].in.jitterS * 1000));
  // The mean time a sample emitted in the interval spent in the jitter buffer.
  const jitterBufferDelayMs = (kind) => {
    const emitted = delta(kind, 'in', 'jitterBufferEmittedCount');
    return emitted > 0 ? round((1000 * delta(kind, 'in', 'jitterBufferDelayS')) / emitted) : null;
  };

  const allIn = (snap) => {
    const ins = [snap.video.in, snap.audio.in].filter(Boolean);
    return ins.length ? {
      packetsReceived: sumBy(ins, 'packetsReceived'), packetsLost: sumBy(ins, 'packetsLost'),
      retransmittedPacketsReceived: sumBy(ins, 'retransmittedPacketsReceived'),
    } : null;
  };

  return {
    intervalS: round(intervalS),
    video: {
      sendKbps: rate('video', 'out'),
      recvKbps: rate('video', 'in'),
      sentWidth: vOut?.width ?? null,
      sentHeight: vOut?.height ?? null,
      sentFps: perSecond(delta('video', 'out', 'frames')) ?? vOut?.fps ?? null,
      recvWidth: vIn?.width ?? null,
      recvHeight: vIn?.height ?? null,
      recvFps: perSecond(delta('video', 'in', 'framesDecoded')),
      qualityLimitationReason: vOut ? dominantLimitation(prev.video.out, vOut) : null,
      codec: vOut?.codec ?? vIn?.codec ?? null,
      nackCount: delta('video', 'in', 'nackCount'),
      pliCount: delta('video', 'in', 'pliCount'),
      freezeCount: delta('video', 'in', 'freezeCount'),
      // The decoder-side freezes' time (W3C definition, as lib/viewer.js applies it to what was shown).
      freezeDurationMs: round(1000 * delta('video', 'in', 'totalFreezesDurationS'), 1),
      // Packets that arrived as retransmissions (RTX after a NACK) or as FEC: what recovered wire loss.
      retransmittedPacketsReceived: delta('video', 'in', 'retransmittedPacketsReceived'),
      fecPacketsReceived: delta('video', 'in', 'fecPacketsReceived'),
      lossPct: intervalLossPct(prev.video.in, vIn),
      residualLossPct: intervalLossPct(prev.video.in, vIn, { afterRetransmission: true }),
      jitterMs: jitterMs('video'),
      jitterBufferDelayMs: jitterBufferDelayMs('video'),
    },
    audio: {
      sendKbps: rate('audio', 'out'),
      recvKbps: rate('audio', 'in'),
      jitterMs: jitterMs('audio'),
      jitterBufferDelayMs: jitterBufferDelayMs('audio'),
      lossPct: intervalLossPct(prev.audio.in, cur.audio.in),
    },
    rttMs,
    lossPct: intervalLossPct(allIn(prev), allIn(cur)),
    // Opus is not retransmitted: audio's share of the loss after repair is audio.lossPct.
    residualLossPct: intervalLossPct(allIn(prev), allIn(cur), { afterRetransmission: true }),
    availableOutgoingKbps: round(cur.candidatePair.availableOutgoingKbps),
  };
}

/**
 * A bulk data flow's rates over one sampling interval, from the page's own cumulative byte counters for one remote:
 * `sentBytes`, bytes the page handed to its data channels minus what they still buffer (what SCTP took), and
 * `receivedBytes`, bytes of the messages delivered to the page. A counter the page does not keep (it only sends or
 * only receives) is null and its rate absent. A flow that started during the interval counts from zero over it.
 * @param {DataCounters|null} prev  the previous tick's counters, null when the flow started since
 * @param {DataCounters} cur
 * @param {number} intervalS
 * @returns {{ sentKbps?: number|null, recvKbps?: number|null }}
 * @typedef {{ sentBytes: number|null, receivedBytes: number|null }} DataCounters
 */
export function dataMetrics(prev, cur, intervalS) {
  if (!(intervalS > 0)) throw new RangeError(`a data interval must be positive (got ${intervalS} s)`);
  const rate = (field) => kbps(cur[field] - (prev?.[field] ?? 0), intervalS);
  return {
    ...(cur.sentBytes === null ? {} : { sentKbps: rate('sentBytes') }),
    ...(cur.receivedBytes === null ? {} : { recvKbps: rate('receivedBytes') }),
  };
}
