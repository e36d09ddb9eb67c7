// `webrtc-testbed trace`: convert throughput logs to mahimahi traces, write synthetic ones, and show a trace's capacity.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../lib/system/errors.js';
import { readInputText } from '../lib/input/input-file.js';
import { displayPath } from '../lib/input/json-file.js';
import { MAX_TRACE_FILE_BYTES } from '../lib/input/limits.js';
import { readTraceArgument } from '../lib/network/trace-file.js';
import {
  SYNTHETIC_PREFIX, SYNTHETIC_SHAPES, THROUGHPUT_UNITS, capacityKbps, formatMahimahi, meanKbps, parseBandwidthLog, parseMahimahi,
  parseThroughputCsv, traceFromSegments,
} from '../lib/network/trace.js';

const FORMATS = ['csv', 'bandwidth-log', 'mahimahi'];

export const command = 'trace <action> <input>';
export const describe = 'Link capacity traces: convert a throughput log to a mahimahi trace, write a synthetic one, or show one per second';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .positional('action', { choices: ['convert', 'show'], describe: 'convert: write <input> as a mahimahi trace (--out); show: its capacity per second' })
  .positional('input', { type: 'string', describe: `a log (convert), a mahimahi trace file, or ${SYNTHETIC_PREFIX}<shape>-… (show, or convert to write it to a file)` })
  .option('from', { choices: FORMATS, default: 'mahimahi', describe: 'convert: the input format: csv (throughput, or time,throughput per row), bandwidth-log (6-column HSDPA/4G logs), mahimahi' })
  .option('unit', { choices: Object.keys(THROUGHPUT_UNITS), default: 'kbps', describe: 'convert --from csv: the throughput column\'s unit' })
  .option('out', { type: 'string', describe: 'convert: the mahimahi trace file to write' })
  .option('force', { type: 'boolean', default: false, describe: 'convert: replace --out if it exists' })
  .check((argv) => {
    if (argv.action === 'convert' && !argv.out) throw new InputError('trace convert: give --out <file> for the mahimahi trace');
    if (argv.action === 'show' && argv.out) throw new InputError('trace show: --out belongs to convert');
    return true;
  })
  .epilogue(`Synthetic shapes (rates in kbit/s, times in s): ${Object.values(SYNTHETIC_SHAPES).map(({ about }) => `${SYNTHETIC_PREFIX}${about}`).join('; ')}.`)
  .example('$0 trace convert report.2011-01-01.log --from bandwidth-log --out bus.mahi', 'an HSDPA/4G log to a trace')
  .example('$0 trace convert tput.csv --from csv --unit mbps --out wifi.mahi', 'per-second throughput to a trace')
  .example('$0 trace show synthetic:step-2000-500-30', 'capacity per second');

/**
 * @param {string} input @param {string} from @param {keyof typeof THROUGHPUT_UNITS} unit
 * @returns {import('../lib/network/trace.js').Trace}
 */
function convert(input, from, unit) {
  if (input.startsWith(SYNTHETIC_PREFIX)) return readTraceArgument(input, 'trace convert');
  const file = displayPath(path.resolve(input));
  const text = readInputText(input, { shown: `trace convert: ${file}`, what: 'log', maxBytes: MAX_TRACE_FILE_BYTES, nextStep: 'check the path' });
  if (from === 'mahimahi') return parseMahimahi(text, file);
  const segments = from === 'csv' ? parseThroughputCsv(text, file, { unit }) : parseBandwidthLog(text, file);
  return traceFromSegments(segments, file, file);
}

/** @param {{action: string, input: string, from: string, unit: keyof typeof THROUGHPUT_UNITS, out?: string, force: boolean}} argv */
export async function handler(argv) {
  const trace = argv.action === 'convert' ? convert(argv.input, argv.from, argv.unit) : readTraceArgument(argv.input, 'trace show');
  const seconds = Array.from({ length: Math.ceil(trace.periodMs / 1000) },
    (_, i) => capacityKbps(trace, 0, i * 1000, Math.min(trace.periodMs, (i + 1) * 1000)));
  const summary = `${trace.opportunitiesMs.length} delivery opportunities over ${trace.periodMs} ms (then it loops); mean ${meanKbps(trace).toFixed(1)} kbps, `
    + `seconds from ${Math.min(...seconds).toFixed(1)} to ${Math.max(...seconds).toFixed(1)} kbps`;
  if (argv.action === 'convert') {
    const out = /** @type {string} */ (argv.out);
    try {
      writeFileSync(out, formatMahimahi(trace), { flag: argv.force ? 'w' : 'wx' });
    } catch (error) {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code;
      throw new InputError(`--out ${out}: ${code === 'EEXIST' ? 'exists; pass --force to replace it' : /** @type {Error} */ (error).message}`, { cause: error });
    }
    console.log(`wrote ${out}: ${summary}`);
    return;
  }
  console.log(`${trace.name}: ${summary}`);
  console.log(`${'second'.padEnd(8)}${'kbps'.padStart(10)}`);
  seconds.forEach((kbps, i) => console.log(`${String(i + 1).padEnd(8)}${kbps.toFixed(1).padStart(10)}`));
}
