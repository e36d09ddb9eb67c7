// When the host, not the network, limited the call (pure): the share of seconds in which a sender's encoder said
// its quality was limited by the CPU (qualityLimitationReason, the successor of J16's googCpuLimited). A starved
// 2-core host looks like a congested link in every rate chart; this flag keeps the two apart. Likewise the seconds in
// which the emulator itself fell behind its schedule (emulatorBehind): then the network was not the one configured.

/** Above this share of CPU-limited seconds in the measurement window a result is marked CPU-limited. */
export const CPU_LIMITED_SHARE = 0.2;

/**
 * @param {Array<{t: number, peer: string, video?: {qualityLimitationReason?: string|null}}>} timeline
 * @param {[number, number]} windowS  (from, to]
 * @returns {{ share: number|null, byPeer: Record<string, number>, limited: boolean, thresholdShare: number, seconds: number[],
 *   peers: Record<string, { limitedS: number, episodes: Array<{ fromS: number, toS: number }> }> }}
 *   share: of the seconds with a sending video encoder, those limited by the CPU; seconds: when (any peer); peers: per
 *   peer, how many seconds any of its encoders was CPU-limited and when, as spans of consecutive seconds (fromS, toS]
 */
export function cpuLimitation(timeline, [fromS, toS]) {
  /** @type {Record<string, {cpu: number, all: number, seconds: Set<number>}>} */
  const counts = {};
  const seconds = new Set();
  for (const entry of timeline) {
    const reason = entry?.video?.qualityLimitationReason;
    if (typeof reason !== 'string' || !(entry.t > fromS && entry.t <= toS)) continue;
    const count = (counts[entry.peer] ??= { cpu: 0, all: 0, seconds: new Set() });
    count.all += 1;
    if (reason === 'cpu') {
      count.cpu += 1;
      seconds.add(Math.round(entry.t));
      count.seconds.add(Math.round(entry.t));
    }
  }
  const sorted = Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1));
  const byPeer = Object.fromEntries(sorted.map(([peer, c]) => [peer, c.cpu / c.all]));
  const peers = Object.fromEntries(sorted.map(([peer, c]) => [peer, { limitedS: c.seconds.size, episodes: episodes([...c.seconds]) }]));
  const all = Object.values(counts).reduce((sum, c) => sum + c.all, 0);
  const share = all ? Object.values(counts).reduce((sum, c) => sum + c.cpu, 0) / all : null;
  const limited = share !== null && share > CPU_LIMITED_SHARE;
  return { share, byPeer, limited, thresholdShare: CPU_LIMITED_SHARE, seconds: [...seconds].sort((a, b) => a - b), peers };
}

/**
 * The seconds of the call in which the emulator fell behind its own schedule (network.emulatorLoad's `behind`: its
 * datagrams left over 1 ms late at p99), as spans; null when the emulator does not measure itself.
 * @param {Array<{ t: number|null, behind: boolean, lateMaxMs: number|null }>|null} rows  on the media clock; a row covers (t − 1, t]
 * @param {[number, number]} windowS  (from, to]
 * @returns {{ behind: boolean, seconds: number, measuredSeconds: number, spans: Array<{ fromS: number, toS: number }>,
 *   lateMaxMs: number|null }|null}  seconds: how many fell behind (rounded to the media clock's); lateMaxMs: the latest datagram
 */
export function emulatorBehind(rows, [fromS, toS]) {
  if (!rows) return null;
  const inWindow = rows.filter((row) => row.t !== null && row.t > fromS && row.t <= toS);
  const seconds = [...new Set(inWindow.filter((row) => row.behind).map((row) => Math.round(/** @type {number} */ (row.t))))];
  const late = inWindow.map((row) => row.lateMaxMs).filter((ms) => typeof ms === 'number');
  return {
    behind: seconds.length > 0, seconds: seconds.length, measuredSeconds: inWindow.length, spans: episodes(seconds),
    lateMaxMs: late.length ? Math.max(...late) : null,
  };
}

/**
 * The end-of-run warning for a run whose emulator fell behind (emulatorBehind), or null.
 * @param {ReturnType<typeof emulatorBehind>|undefined} behind @param {string} emulator  its name
 */
export function emulatorBehindWarning(behind, emulator) {
  if (!behind?.behind) return null;
  const spans = behind.spans.map((span) => `${span.fromS}–${span.toS} s`).join(', ');
  return `the ${emulator} emulator fell behind its schedule in ${behind.seconds} of ${behind.measuredSeconds} s of the call (${spans}; `
    + `datagrams over 1 ms late at p99, the latest ${behind.lateMaxMs} ms): in those seconds the links were not the configured ones, `
    + 'as on a saturated host; see network.emulatorLoad in result.json, and run fewer peers, a smaller video preset or on a larger machine';
}

/** Consecutive seconds joined into spans: [3, 4, 5, 9] → (2, 5], (8, 9]. @param {number[]} seconds */
function episodes(seconds) {
  /** @type {Array<{ fromS: number, toS: number }>} */
  const spans = [];
  for (const t of seconds.sort((a, b) => a - b)) {
    const last = spans.at(-1);
    if (last && last.toS === t - 1) last.toS = t;
    else spans.push({ fromS: t - 1, toS: t });
  }
  return spans;
}
