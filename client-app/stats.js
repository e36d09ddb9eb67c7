// Pure logic shared by the browser page and Node tests: getStats() report -> cumulative snapshot -> per-interval values.
// Standard webrtc-stats only (https://www.w3.org/TR/webrtc-stats/); no legacy goog* fields.

/** @typedef {Record<string, any>} StatsObject  one RTCStats dictionary; any: the DOM types lack most webrtc-stats members */

/** @param {StatsObject[]} items @param {string} field */
const sumBy = (items, field) => items.reduce((total, item) => total + (Number(item[field]) || 0), 0);
/**
 * The sum of a counter that not every browser reports (Firefox has no retransmittedPacketsReceived): null when no
 * stats object has it, so the timeline shows "unknown" rather than a 0 that never was measured.
 * @param {StatsObject[]} items @param {string} field
 */
const sumPresent = (items, field) => (items.some((item) => item[field] !== undefined) ? sumBy(items, field) : null);

/**
 * Reduce one RTCStatsReport (as an array of stats objects) to the cumulative counters the harness needs.
 * @param {StatsObject[]} stats
 * @param {string|null} [screenMid]  the m-line of a shared screen (client-app/screen-share.js): its streams are `screen`,
 *   not `video`
 * @returns {Snapshot}
 *
 * @typedef {{ timestampMs: number, video: MediaCounters, audio: MediaCounters, screen?: MediaCounters,
 *   rtt: { totalS: number, measurements: number },
 *   candidatePair: { currentRttMs: number|null, availableOutgoingKbps: number|null },
 *   selectedPair: SelectedPair|null, encodings?: import('./publish.js').EncodingCounters[]|null }} Snapshot
 *   encodings: a publisher's, per rid (publish.js)
 * @typedef {{ out: StatsObject|null, in: StatsObject|null }} MediaCounters  the counters below, per direction
 */
export function snapshotFromStats(stats, screenMid = null) {
  /** @param {string} type @param {string} [kind] @param {boolean} [screen] the shared screen's streams, else the others */
  const byType = (type, kind, screen = false) => stats.filter((s) => s.type === type && (kind === undefined || s.kind === kind)
    && onScreen(s, screenMid) === screen);
  const byId = new Map(stats.map((s) => [s.id, s]));
  const timestampMs = Math.max(0, ...stats.map((s) => s.timestamp || 0));

  /** @param {'video'|'audio'} kind @param {boolean} [screen] the screen's streams, else the others @returns {MediaCounters} */
  const media = (kind, screen = false) => {
    const [outbound, inbound] = [byType('outbound-rtp', kind, screen), byType('inbound-rtp', kind, screen)];
    /** @param {StatsObject[]} list */
    const codecOf = (list) => {
      const codec = list.map((s) => byId.get(s.codecId)).find(Boolean);
      return codec ? String(codec.mimeType).replace(/^(audio|video)\//i, '') : null;
    };
    /** @param {StatsObject[]} list @param {string} field */
    const last = (list, field) => list.map((s) => s[field]).filter((v) => v !== undefined).at(-1) ?? null;
    /** @type {Record<string, number>} */
    const limitationDurations = {};
    for (const s of outbound) {
      for (const [reason, seconds] of Object.entries(/** @type {Record<string, number>} */ (s.qualityLimitationDurations ?? {}))) {
        limitationDurations[reason] = (limitationDurations[reason] ?? 0) + seconds;
      }
    }
    return {
      out: outbound.length === 0 ? null : {
        bytes: sumBy(outbound, 'bytesSent'), retransmittedBytes: sumPresent(outbound, 'retransmittedBytesSent'),
        frames: sumPresent(outbound, 'framesSent'),
        packetsSent: sumPresent(outbound, 'packetsSent'),
        packetSendDelayS: sumPresent(outbound, 'totalPacketSendDelay'),
        framesEncoded: sumPresent(outbound, 'framesEncoded'),
        // The camera track's frames (media-source): what the sender had to encode, against what it sent.
        framesCaptured: kind === 'video' ? sumPresent(videoSources(stats, screenMid, screen), 'frames') : null,
        encodeTimeS: sumPresent(outbound, 'totalEncodeTime'),
        width: last(outbound, 'frameWidth'),
        height: last(outbound, 'frameHeight'),
        fps: last(outbound, 'framesPerSecond'),
        qualityLimitationReason: last(outbound, 'qualityLimitationReason'),
        qualityLimitationDurations: limitationDurations,
        codec: codecOf(outbound),
        implementation: last(outbound, 'encoderImplementation'),
      },
      in: inbound.length === 0 ? null : {
        bytes: sumBy(inbound, 'bytesReceived'), retransmittedBytes: sumPresent(inbound, 'retransmittedBytesReceived'),
        packetsReceived: sumBy(inbound, 'packetsReceived'),
        packetsLost: sumBy(inbound, 'packetsLost'),
        framesDecoded: sumPresent(inbound, 'framesDecoded'),
        width: last(inbound, 'frameWidth'),
        height: last(inbound, 'frameHeight'),
        jitterS: last(inbound, 'jitter'),
        jitterBufferDelayS: sumPresent(inbound, 'jitterBufferDelay'),
        jitterBufferEmittedCount: sumPresent(inbound, 'jitterBufferEmittedCount'),
        retransmittedPacketsReceived: sumPresent(inbound, 'retransmittedPacketsReceived'),
        fecPacketsReceived: sumPresent(inbound, 'fecPacketsReceived'),
        nackCount: sumPresent(inbound, 'nackCount'),
        pliCount: sumPresent(inbound, 'pliCount'),
        freezeCount: sumPresent(inbound, 'freezeCount'),
        totalFreezesDurationS: sumPresent(inbound, 'totalFreezesDuration'),
        qpSum: sumPresent(inbound, 'qpSum'),
        // Audio playout (NetEq): samples played, and those it concealed (loss) or stretched or cut (jitter).
        totalSamplesReceived: sumPresent(inbound, 'totalSamplesReceived'),
        concealedSamples: sumPresent(inbound, 'concealedSamples'),
        insertedSamplesForDeceleration: sumPresent(inbound, 'insertedSamplesForDeceleration'),
        removedSamplesForAcceleration: sumPresent(inbound, 'removedSamplesForAcceleration'),
        totalAudioEnergy: sumPresent(inbound, 'totalAudioEnergy'),
        totalSamplesDurationS: sumPresent(inbound, 'totalSamplesDuration'),
        codec: codecOf(inbound),
        implementation: last(inbound, 'decoderImplementation'),
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
    ...(screenMid === null ? {} : { screen: media('video', true) }),
    rtt: { totalS: sumBy(remoteInbound, 'totalRoundTripTime'), measurements: sumBy(remoteInbound, 'roundTripTimeMeasurements') },
    candidatePair: {
      currentRttMs: pairRttMs(selectedPair),
      availableOutgoingKbps: selectedPair?.availableOutgoingBitrate === undefined ? null : selectedPair.availableOutgoingBitrate / 1000,
    },
    selectedPair: pairPath(selectedPair, byId),
  };
}

/** Whether a stream is of the shared screen's m-line. @param {StatsObject} s @param {string|null} screenMid */
const onScreen = (s, screenMid) => screenMid !== null && s.mid === screenMid;

/**
 * The camera's (screen false) or the shared screen's video media-source stats: the screen's is the one its outbound
 * stream names, the camera's every other.
 * @param {StatsObject[]} stats @param {string|null} screenMid @param {boolean} screen
 */
function videoSources(stats, screenMid, screen) {
  const named = new Set(stats.filter((s) => s.type === 'outbound-rtp' && onScreen(s, screenMid)).map((s) => s.mediaSourceId));
  return stats.filter((s) => s.type === 'media-source' && s.kind === 'video' && named.has(s.id) === screen);
}

/**
 * The path ICE selected: each end's candidate type and transport, and how this end reaches its TURN server
 * (relayProtocol, a relay candidate's only), so "this call ran over TURN/TLS" is read from the browser, not assumed.
 * @param {StatsObject|undefined} pair @param {Map<string, StatsObject>} byId
 * @returns {SelectedPair|null}
 * @typedef {{ localType: string|null, localProtocol: string|null, relayProtocol: string|null, remoteType: string|null,
 *   remoteProtocol: string|null, localAddress: string|null, remoteAddress: string|null }} SelectedPair  the addresses show a
 *   handover's new pair
 */
function pairPath(pair, byId) {
  if (!pair) return null;
  const local = byId.get(pair.localCandidateId);
  const remote = byId.get(pair.remoteCandidateId);
  return {
    localType: text(local?.candidateType), localProtocol: text(local?.protocol), relayProtocol: text(local?.relayProtocol),
    remoteType: text(remote?.candidateType), remoteProtocol: text(remote?.protocol),
    localAddress: text(local?.address ?? local?.ip), remoteAddress: text(remote?.address ?? remote?.ip),
  };
}

/**
 * The selected pair's current RTT in seconds, or null when it was never measured: Firefox reports 0 for
 * currentRoundTripTime and totalRoundTripTime although its consent checks got responses.
 * any: a getStats candidate pair, whose fields depend on the browser
 * @param {Record<string, any>|undefined} pair
 */
function pairRttMs(pair) {
  if (pair?.currentRoundTripTime === undefined) return null;
  const unmeasured = pair.currentRoundTripTime === 0 && pair.totalRoundTripTime === 0 && pair.responsesReceived > 0;
  return unmeasured ? null : pair.currentRoundTripTime * 1000;
}

/** @param {number|null} value @param {number} [digits] */
const round = (value, digits = 3) => (value === null || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));
/** @param {number} bytesDelta @param {number} intervalS */
const kbps = (bytesDelta, intervalS) => round((bytesDelta * 8) / 1000 / intervalS);

/**
 * Loss over an interval from the receiver's counters: lost / (received + lost), in percent (A12 eq. 1). Chromium
 * counts a packet that a retransmission (RTX) later repaired as lost (RFC 3550's receiver-report loss), so this is
 * the loss before repair. afterRetransmission: what is left once every retransmission received in the interval
 * filled a gap, an estimate: a packet retransmitted twice counts twice, and a repair arriving an interval after its
 * loss leaves the first interval too high (never below 0).
 * @param {StatsObject|null} prevIn  inbound counters: packetsReceived, packetsLost, retransmittedPacketsReceived
 * @param {StatsObject|null} curIn
 * @param {{ afterRetransmission?: boolean }} [options]
 */
export function intervalLossPct(prevIn, curIn, { afterRetransmission = false } = {}) {
  if (!prevIn || !curIn) return null;
  const received = curIn.packetsReceived - prevIn.packetsReceived;
  const lost = curIn.packetsLost - prevIn.packetsLost;
  if (received + lost <= 0) return null;
  if (afterRetransmission && (curIn.retransmittedPacketsReceived === null || prevIn.retransmittedPacketsReceived === null)) return null;
  const repaired = afterRetransmission ? (curIn.retransmittedPacketsReceived ?? 0) - (prevIn.retransmittedPacketsReceived ?? 0) : 0;
  return round(Math.max(0, (100 * (lost - repaired)) / (received + lost)));
}

/**
 * The reason that limited the sender longest during the interval (falls back to the current reason).
 * @param {StatsObject|null} prevOut @param {StatsObject} curOut
 */
function dominantLimitation(prevOut, curOut) {
  /** @type {string|null} */
  let best = null;
  let bestS = 0;
  for (const [reason, seconds] of Object.entries(/** @type {Record<string, number>} */ (curOut.qualityLimitationDurations))) {
    const deltaS = seconds - (prevOut?.qualityLimitationDurations?.[reason] ?? 0);
    if (deltaS > bestS) [best, bestS] = [reason, deltaS];
  }
  return best ?? curOut.qualityLimitationReason;
}

/** @typedef {'video'|'audio'|'screen'} Kind @typedef {'out'|'in'} Direction */

/**
 * Per-interval values between two snapshots of the same peer connection (the timeline entry minus t/peer/remote).
 * @param {Snapshot} prev @param {Snapshot} cur
 */
export function intervalMetrics(prev, cur) {
  const intervalS = (cur.timestampMs - prev.timestampMs) / 1000;
  if (!(intervalS > 0)) throw new RangeError(`stats timestamps must increase (got ${prev.timestampMs} then ${cur.timestampMs})`);
  const read = intervalReader(prev, cur, intervalS);
  const rttMeasurements = cur.rtt.measurements - prev.rtt.measurements;
  const rttMs = rttMeasurements > 0
    ? round((1000 * (cur.rtt.totalS - prev.rtt.totalS)) / rttMeasurements)
    : round(cur.candidatePair.currentRttMs);
  return {
    intervalS: round(intervalS),
    video: videoMetrics(prev, cur, read),
    ...(cur.screen ? { screen: screenMetrics(videoMetrics(prev, cur, read, 'screen')) } : {}),
    audio: {
      sendKbps: read.rate('audio', 'out'),
      recvKbps: read.rate('audio', 'in'),
      jitterMs: read.jitterMs('audio'),
      jitterBufferDelayMs: read.jitterBufferDelayMs('audio'),
      lossPct: intervalLossPct(prev.audio.in, cur.audio.in),
      concealedPct: read.playoutPct('concealedSamples'),
      insertedForDecelerationPct: read.playoutPct('insertedSamplesForDeceleration'),
      removedForAccelerationPct: read.playoutPct('removedSamplesForAcceleration'),
      recvLevel: read.audioLevel(),
    },
    rttMs,
    lossPct: intervalLossPct(allIn(prev), allIn(cur)),
    // Opus is not retransmitted: audio's share of the loss after repair is audio.lossPct.
    residualLossPct: intervalLossPct(allIn(prev), allIn(cur), { afterRetransmission: true }),
    availableOutgoingKbps: round(cur.candidatePair.availableOutgoingKbps),
    selectedPair: cur.selectedPair,
  };
}

/**
 * The video stream's values over the interval: the camera's, or a shared screen's (kind `screen`).
 * @param {Snapshot} prev @param {Snapshot} cur @param {ReturnType<typeof intervalReader>} read @param {'video'|'screen'} [kind]
 */
function videoMetrics(prev, cur, { delta, rate, perSecond, msOf, jitterMs, jitterBufferDelayMs, sendDelayMs }, kind = 'video') {
  const [vOut, vIn] = [cur[kind]?.out, cur[kind]?.in];
  const framesDecoded = delta(kind, 'in', 'framesDecoded');
  const qpSum = delta(kind, 'in', 'qpSum');
  // The mean time the encoder took per frame it encoded in the interval: WebRTC adapts for the CPU (reason `cpu`) when
  // this nears the frame interval.
  const encodedFrames = delta(kind, 'out', 'framesEncoded');
  const encodeTimeS = delta(kind, 'out', 'encodeTimeS');
  return {
    sendKbps: rate(kind, 'out'),
    recvKbps: rate(kind, 'in'),
    sentWidth: vOut?.width ?? null,
    sentHeight: vOut?.height ?? null,
    sentFps: perSecond(delta(kind, 'out', 'frames')) ?? vOut?.fps ?? null,
    capturedFps: perSecond(delta(kind, 'out', 'framesCaptured')),
    recvWidth: vIn?.width ?? null,
    recvHeight: vIn?.height ?? null,
    recvFps: perSecond(framesDecoded),
    qualityLimitationReason: vOut ? dominantLimitation(prev[kind]?.out ?? null, vOut) : null,
    encodeMsPerFrame: encodedFrames !== null && encodedFrames > 0 && encodeTimeS !== null
      ? round((1000 * encodeTimeS) / encodedFrames, 1) : null,
    codec: vOut?.codec ?? vIn?.codec ?? null,
    encoderImplementation: text(vOut?.implementation),
    decoderImplementation: text(vIn?.implementation),
    // The decoded frames' mean quantizer: on the codec's own scale (VP8 0-127, VP9 and AV1 0-255, H.264 0-51).
    qpPerFrame: framesDecoded !== null && framesDecoded > 0 && qpSum !== null ? round(qpSum / framesDecoded, 2) : null,
    // The mean time a video packet sent in the interval waited in the sender's pacer: glass-to-glass delay beyond
    // the network's and the receiver's, large when the rate estimate collapses (Firefox does not report it).
    packetSendDelayMs: sendDelayMs(kind),
    nackCount: delta(kind, 'in', 'nackCount'),
    pliCount: delta(kind, 'in', 'pliCount'),
    freezeCount: delta(kind, 'in', 'freezeCount'),
    // The decoder-side freezes' time (W3C definition, as lib/viewer/viewer.js applies it to what was shown).
    freezeDurationMs: msOf(delta(kind, 'in', 'totalFreezesDurationS')),
    // Packets that arrived as retransmissions (RTX after a NACK) or as FEC: what recovered wire loss.
    retransmittedPacketsReceived: delta(kind, 'in', 'retransmittedPacketsReceived'),
    fecPacketsReceived: delta(kind, 'in', 'fecPacketsReceived'),
    // The retransmissions' payload, a part of sendKbps / recvKbps (webrtc-stats bytesSent / bytesReceived count RTX).
    retransmittedSentKbps: rate(kind, 'out', 'retransmittedBytes'),
    retransmittedKbps: rate(kind, 'in', 'retransmittedBytes'),
    lossPct: intervalLossPct(prev[kind]?.in ?? null, vIn ?? null),
    residualLossPct: intervalLossPct(prev[kind]?.in ?? null, vIn ?? null, { afterRetransmission: true }),
    jitterMs: jitterMs(kind),
    jitterBufferDelayMs: jitterBufferDelayMs(kind),
  };
}

/**
 * A shared screen's values: what shows its content behaviour (the resolution kept, the frame rate given up when bits
 * are short) and its rate.
 * @param {ReturnType<typeof videoMetrics>} video  videoMetrics of the screen's streams
 */
const screenMetrics = (video) => {
  const { sendKbps, recvKbps, sentHeight, sentFps, recvWidth, recvHeight, recvFps, qualityLimitationReason, qpPerFrame } = video;
  return { sendKbps, recvKbps, sentHeight, sentFps, recvWidth, recvHeight, recvFps, qualityLimitationReason, qpPerFrame };
};

/** The signaling edge refuses longer texts (signaling/messages.js MAX_SAMPLE_TEXT_CHARS). @param {unknown} value */
const text = (value) => (typeof value === 'string' && value !== '' ? value.slice(0, 64) : null);

/**
 * Every inbound stream's packet counters together. Audio is not retransmitted: the video stream's retransmissions
 * are all there are (unknown if its browser lacks them).
 * @param {Snapshot} snap @returns {StatsObject|null}
 */
const allIn = (snap) => {
  const ins = [snap.video.in, snap.audio.in].filter((counters) => counters !== null);
  return ins.length ? {
    packetsReceived: sumBy(ins, 'packetsReceived'), packetsLost: sumBy(ins, 'packetsLost'),
    retransmittedPacketsReceived: snap.video.in ? snap.video.in.retransmittedPacketsReceived : 0,
  } : null;
};

/**
 * What every metric of an interval reads: counter deltas, rates and means between two snapshots.
 * @param {Snapshot} prev @param {Snapshot} cur @param {number} intervalS
 */
function intervalReader(prev, cur, intervalS) {
  /** @param {Kind} kind @param {Direction} dir @param {string} field @returns {number|null} */
  const delta = (kind, dir, field) => {
    const a = prev[kind]?.[dir]?.[field];
    const b = cur[kind]?.[dir]?.[field];
    return a === null || a === undefined || b === null || b === undefined ? null : b - a;
  };
  return {
    delta,
    /** A byte counter's rate; one the browser lacks is null. @param {Kind} kind @param {Direction} dir @param {string} [field] */
    rate: (kind, dir, field = 'bytes') => {
      const bytes = delta(kind, dir, field);
      const counter = cur[kind]?.[dir]?.[field];
      // A stream that appears mid-interval counts from zero.
      if (bytes === null) return typeof counter === 'number' ? kbps(counter, intervalS) : null;
      return kbps(bytes, intervalS);
    },
    // A field the browser does not report stays null rather than 0 ms.
    /** @param {number|null} seconds */
    msOf: (seconds) => (seconds === null ? null : round(1000 * seconds, 1)),
    /** @param {number|null} value */
    perSecond: (value) => (value === null ? null : round(value / intervalS, 2)),
    /** @param {Kind} kind */
    jitterMs: (kind) => {
      const jitterS = cur[kind]?.in?.jitterS;
      return jitterS == null ? null : round(jitterS * 1000);
    },
    /** The mean time a sample emitted in the interval spent in the jitter buffer. @param {Kind} kind */
    jitterBufferDelayMs: (kind) => {
      const emitted = delta(kind, 'in', 'jitterBufferEmittedCount');
      return emitted !== null && emitted > 0 ? round((1000 * (delta(kind, 'in', 'jitterBufferDelayS') ?? 0)) / emitted) : null;
    },
    /** The share of the audio samples played out in the interval that the jitter buffer made up or changed, in %. @param {string} field */
    playoutPct: (field) => {
      const played = delta('audio', 'in', 'totalSamplesReceived');
      const counted = delta('audio', 'in', field);
      return played !== null && played > 0 && counted !== null ? round((100 * counted) / played, 2) : null;
    },
    /**
     * The played-out audio's RMS level over the interval, 0 to 1 of full scale: webrtc-stats' sqrt(Δenergy / Δduration),
     * not the instantaneous audioLevel a one-second sample would catch at a random point of a spurt or pause.
     */
    audioLevel: () => {
      const durationS = delta('audio', 'in', 'totalSamplesDurationS');
      const energy = delta('audio', 'in', 'totalAudioEnergy');
      return durationS !== null && durationS > 0 && energy !== null ? round(Math.sqrt(Math.max(0, energy) / durationS), 5) : null;
    },
    /** @param {Kind} kind */
    sendDelayMs: (kind) => {
      const packets = delta(kind, 'out', 'packetsSent');
      const delayS = delta(kind, 'out', 'packetSendDelayS');
      return packets !== null && packets > 0 && delayS !== null ? round((1000 * delayS) / packets, 1) : null;
    },
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
  /** @param {'sentBytes'|'receivedBytes'} field  one the page keeps (not null) */
  const rate = (field) => kbps((cur[field] ?? 0) - (prev?.[field] ?? 0), intervalS);
  return {
    ...(cur.sentBytes === null ? {} : { sentKbps: rate('sentBytes') }),
    ...(cur.receivedBytes === null ? {} : { recvKbps: rate('receivedBytes') }),
  };
}
