// When the host, not the network, limited the call (pure): the share of seconds in which a sender's encoder said
// its quality was limited by the CPU (qualityLimitationReason, the successor of J16's googCpuLimited). A starved
// 2-core host looks like a congested link in every rate chart; this flag keeps the two apart.

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
