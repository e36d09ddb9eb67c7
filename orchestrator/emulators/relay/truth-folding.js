/**
 * When the relay folds its links' truth: each link's completed seconds one link per turn of the event loop, just
 * after each second's end. Folding every link's in one turn (as truth() or each link's first datagram of a new second
 * did) held datagrams back 2-6 ms once a second at 60 000 packets/s: 8 links x 7 740 delay samples, two series, two
 * percentiles each (README "Load and saturation"). Spread, a turn folds one link's second; the rows are the same.
 */
import { performance } from 'node:perf_hooks';

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
