// Which runs a suite (or one shard of it) makes, in which order (pure).
import { InputError } from '../lib/system/errors.js';

/** Browser launch, connection and teardown around each run's measured seconds, for balancing shards. */
export const RUN_OVERHEAD_S = 15;

/**
 * @param {string} text "k/n", 1 <= k <= n
 * @returns {{ index: number, count: number }}
 */
export function parseShard(text) {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(String(text));
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new InputError(`--shard ${text}: must be k/n with 1 <= k <= n, e.g. --shard 2/4 runs the second of four slices`);
  }
  return { index, count };
}

/**
 * Estimated wall-clock seconds of all repetitions of an entry.
 * @param {{ repetitions: number, scenario: { durationS: number } }} entry
 */
export const entryCostS = (entry) => entry.repetitions * (entry.scenario.durationS + RUN_OVERHEAD_S);

/**
 * A deterministic slice of the suite's scenarios. All repetitions of a scenario stay on one shard, so each
 * shard's sample of a scenario comes from one machine. Scenarios go, longest first (ties in suite order), to
 * the shard with the least estimated time so far (ties to the lowest shard): the LPT rule (Graham 1969),
 * which keeps the slowest shard within 4/3 of the best possible split. The result keeps suite order.
 * @template {{ name: string, repetitions: number, scenario: { durationS: number } }} E
 * @param {E[]} entries
 * @param {{ index: number, count: number }} shard
 * @returns {E[]}
 */
export function shardEntries(entries, { index, count }) {
  const loadS = new Array(count).fill(0);
  const owner = new Map();
  const byCost = entries.map((entry, order) => ({ entry, order, costS: entryCostS(entry) }))
    .sort((a, b) => b.costS - a.costS || a.order - b.order);
  for (const { entry, costS } of byCost) {
    const target = loadS.indexOf(Math.min(...loadS));
    loadS[target] += costS;
    owner.set(entry, target + 1);
  }
  return entries.filter((entry) => owner.get(entry) === index);
}

/**
 * The runs of a list of entries, scenario by scenario.
 * @template {{ name: string, repetitions: number }} E
 * @param {E[]} entries
 * @returns {{ entry: E, repetition: number, dir: string }[]} dir is relative to the suite directory
 */
export function planRuns(entries) {
  return entries.flatMap((entry) => Array.from(
    { length: entry.repetitions },
    (_, k) => ({ entry, repetition: k + 1, dir: runDirName(entry.name, k + 1) }),
  ));
}

/** @param {string} scenario @param {number} repetition */
export const runDirName = (scenario, repetition) => `${scenario}/run-${repetition}`;
