// Live progress: a status line redrawn once a second on a terminal, plain lines every 10 s elsewhere (CI logs).

/** @param {unknown} value @param {string} unit */
const fmt = (value, unit) => (typeof value === 'number' ? `${Math.round(value)} ${unit}` : '–');

/** @typedef {import('../../signaling/messages.js').Sample} Sample */
/** A sample's video receive rate, if it has one. @param {Sample} sample */
const recvKbpsOf = ({ video }) => (typeof video === 'object' && video !== null && 'recvKbps' in video ? video.recvKbps : undefined);

/**
 * @param {{ durationS: number, stream?: NodeJS.WriteStream, plainEveryS?: number }} options
 * @returns {{ sample: (sample: Sample) => void, log: (line: string) => void, done: () => void }}
 */
export function createProgress({ durationS, stream = process.stderr, plainEveryS = 10 }) {
  /** @type {Map<string, Sample>} */
  const latest = new Map();
  let lastT = 0;
  let lastPlainT = 0;
  let drawn = false;
  const line = () => {
    const peers = [...latest.values()].map((s) => `${s.peer}←${s.remote} video ${fmt(recvKbpsOf(s), 'kbps')} rtt ${fmt(s.rttMs, 'ms')}`);
    return `[${String(lastT).padStart(String(durationS).length)}/${durationS} s] ${peers.join(' | ')}`;
  };
  return {
    sample(sample) {
      latest.set(`${sample.peer}<-${sample.remote}`, sample);
      if (sample.t === lastT) return;
      lastT = sample.t;
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${line()}`);
        drawn = true;
      } else if (lastT - lastPlainT >= plainEveryS) {
        lastPlainT = lastT;
        stream.write(`${line()}\n`);
      }
    },
    log(text) {
      stream.write(`${drawn ? '\r\x1b[2K' : ''}${text}\n`);
      drawn = false;
    },
    done() {
      if (drawn) stream.write(`\r\x1b[2K${line()}\n`);
      drawn = false;
    },
  };
}
