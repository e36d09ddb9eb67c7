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
  text: 'Both peers encode and decode on this machine\'s {cpus} cores (J16: a machine per peer), so CPU can cap frame rate '
    + 'and resolution (see qualityLimitationReason in the run reports)',
  columns: ['video.recvWidth', 'video.recvHeight', 'video.recvFps'],
  when: { cpusAtMost: 4 },
};
/** Measured in docs/reproductions.md, "Audio at 32 kbps and the RTT of an open link". */
export const OPUS_DEFAULT = {
  id: 'opus-default',
  text: 'Chromium encodes the fake microphone with Opus at libwebrtc\'s one-channel default, 32 kbps (the encoder\'s target '
    + 'whatever the link: 32.0 kbps of payload measured), and getStats counts payload only (RTP headers add 11.6 kbps); J16\'s '
    + '62–69 kbps matches Opus\'s two-channel target (64.4 kbps here with stereo=1), but J16 states neither its channels nor '
    + 'how it counted bytes: an open question',
  columns: ['audio.recvKbps'],
};
export const HOST_RTT = {
  id: 'host-rtt',
  text: 'With no delay added the RTT is the hosts\' own: RTCP\'s round trip through two browsers sharing {cpus} cores (per-second '
    + 'median 3.3 ms on the kernel path, 2.6 ms at 360p30) plus under 1 ms of the relay\'s userspace hop (median 4.2 ms '
    + 'through it); J16\'s 1.13 ms was two dedicated machines',
  columns: ['rttMs'],
  when: { cpusAtMost: 4 },
};
