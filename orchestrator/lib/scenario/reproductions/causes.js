// Known causes of deviation that several J16 tables share (lib/scenario/reproductions.js, lib/scenario/reproductions/families.js).

const VIDEO_QUALITY = ['video.recvKbps', 'video.recvWidth', 'video.recvHeight', 'video.recvFps'];

/** J16 injected 1080p50 (J16 §7-4); the harness defaults to 720p30. */
export const J16_SOURCE = {
  id: 'source',
  text: 'J16 injected a 1080p50 source; these runs sent {video}, which bounds resolution and frame rate, and an open 720p30 '
    + 'call settles at 960×540 / ~2 Mbps (Chromium\'s quality scaler and its per-resolution cap; README)',
  columns: VIDEO_QUALITY,
  when: { videoOtherThan: '1080p50' },
};
export const J16_CHROME = {
  id: 'chrome-2016',
  text: 'J16 measured a 2016 Chrome (GCC with receiver-side REMB estimates, rate held between 2 and 10 % loss); today\'s '
    + 'Chromium estimates at the sender (transport-wide feedback) with a newer loss-based controller',
};
export const CORES = {
  id: 'cores',
  text: 'Both peers encode and decode on this machine\'s {cpus} cores (J16: a machine per peer), and in the marked rows '
    + 'CPU capped the video: marked only where a passed run\'s record shows a CPU-limited second (an encoder the scenario '
    + 'does not constrain, by Chromium\'s qualityLimitationReason or the harness\'s verdict, or the cores ≥ 90 % busy; a '
    + 'record without that evidence, by the suite\'s CPU flag), whose share or flag the row\'s heading gives',
  columns: ['video.recvWidth', 'video.recvHeight', 'video.recvFps'],
  when: { cpusAtMost: 4, cpuLimitedRows: true },
};
/** Measured in docs/reproductions.md, "Audio at 32 kbps and the RTT of an open link". */
export const OPUS_DEFAULT = {
  id: 'opus-default',
  text: 'Chromium encodes the fake microphone with Opus at libwebrtc\'s one-channel default target, 32 kbps, whatever the '
    + 'link, in VBR: what it spends follows the audio, and getStats counts payload only (RTP headers add 11.6 kbps). The '
    + 'harness\'s loop was a gliding tone under pink noise, without pauses, until ed77610 (2026-11-29) and is speech with '
    + 'pauses since, which costs fewer bits '
    + '(ffmpeg\'s libopus at 32 kbps VBR, 20 ms frames: 31.1 kbps of payload for the tone, 28.3 for the speech; 32.0 '
    + 'for both at a constant rate). '
    + 'Received, median per row and audio loop ("not recorded": records made before the field, see the page\'s header): '
    + '{measured}. J16\'s 62–69 kbps matches Opus\'s two-channel target (64.4 kbps here with '
    + 'stereo=1), but J16 states neither its channels nor how it counted bytes: an open question',
  columns: ['audio.recvKbps'],
  measured: { path: 'audio.recvKbps', by: /** @type {const} */ ('audio') },
};
export const HOST_RTT = {
  id: 'host-rtt',
  text: 'With no delay added the RTT is the hosts\' own: RTCP\'s round trip through two browsers sharing {cpus} cores (per-second '
    + 'median 3.3 ms on the kernel path, 2.6 ms at 360p30) plus the relay\'s userspace hop, which depends on its packet '
    + 'path; median per row and relay: {measured}. J16\'s 1.13 ms was two dedicated machines',
  columns: ['rttMs'],
  when: { cpusAtMost: 4 },
  measured: { path: 'rttMs', by: /** @type {const} */ ('emulator') },
};
/** Measured in docs/reproductions.md, "Video above the open link's rate at 5 % loss". */
export const RTX_PADDING = {
  id: 'rtx-padding',
  text: 'The rate above the open link\'s is padding, not media: in spells the sender fills up to its estimate by re-sending '
    + 'recent video packets on the RTX stream, and getStats\' bytesSent / bytesReceived count their payload (FEC is off). '
    + 'Measured in loss-5 runs 4 and 5 (2026-11-30, 300 s, 720p30, relay, each peer\'s timeline): per second, video '
    + 'received = 1.90–2.01 Mbps + ~1040 bytes × RTX packets received (r² 0.96–0.97 in the three flows with spells); in '
    + 'the spells (13–38 % of a flow\'s seconds) 440–880 RTX packets/s arrive against ~12 NACKs/s and the relay carries '
    + '0.85–0.89 of the sender\'s estimate; outside them ~14 RTX/s and 2.02–2.14 Mbps received, the open link\'s rate '
    + '(the runs\' means 2718 and 3627 kbps, medians 2095 and 2036). A 60 s loss-5 call at 360p30 with '
    + 'video.retransmittedKbps (2026-11-30) shows whose count it is: in its spells the receiver counted 0.86–1.9 Mbps of '
    + 'retransmissions, the sender\'s retransmittedBytesSent 40–114 kbps of its 2.6–3.7 Mbps. The padding also counts as '
    + 'received packets, so getStats\' loss reads 1.9–2.1 % in the spells where the relay dropped 4.8–5.1 %',
  columns: ['video.recvKbps', 'lossPct'],
  rows: ['loss-5'],
};
