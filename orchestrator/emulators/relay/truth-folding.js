/**
 * When the relay closes its seconds: a tick just after each one ends, and each link's truth folded one link per turn
 * of the event loop after it. Folding every link's in one turn (as truth() or each link's first datagram of a new second
 * did) held datagrams back 2-6 ms once a second at 60 000 packets/s: 8 links x 7 740 delay samples, two series, two
 * percentiles each (README "Load and saturation"). Spread, a turn folds one link's second; the rows are the same.
 */
import { performance } from 'node:perf_hooks';

/** The tick runs this long after each second's end, so that timer error cannot put it before. */
const TICK_MARGIN_MS = 5;

/**
 * Calls onSecond just after each second since originMs ends, until the returned stop() is called. Armed past the
 * boundary: a timer's clock (whole ms, cached per loop turn) lags performance.now(), so an interval fired "at" the
 * boundary often ran before it, closing nothing, and the next row then held two seconds. The timer does not keep the
 * process alive.
 * @param {number} originMs @param {() => void} onSecond @returns {() => void}
 */
export function afterEverySecond(originMs, onSecond) {
  /** @type {NodeJS.Timeout|null} */
  let timer = null;
  const arm = () => {
    const sinceOriginMs = performance.now() - originMs;
    timer = setTimeout(() => {
      onSecond();
      if (timer) arm();
    }, Math.ceil(sinceOriginMs / 1000) * 1000 + TICK_MARGIN_MS - sinceOriginMs);
    timer.unref();
  };
  arm();
  return () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

/**
 * @param {Array<{ foldTruth: (nowMs: number) => void }>} queues  the links, folded last to first
 * @param {(nowMs: number) => boolean} prepare  delivers what is due by nowMs first; false once the relay is closed
 */
export function foldOneLinkPerTurn(queues, prepare) {
  const next = () => {
    const queue = queues.pop();
    const nowMs = performance.now();
    if (!queue || !prepare(nowMs)) return;
    queue.foldTruth(nowMs);
    setImmediate(next);
  };
  next();
}
