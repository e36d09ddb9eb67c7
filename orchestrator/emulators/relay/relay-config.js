/**
 * The relay's configure() input checked against what it already has, before anything changes: routes name links
 * that exist or come with the call, traces are well formed, links name traces that were given.
 */
import { InputError } from '../../lib/system/errors.js';
import { checkTrace } from '../../lib/network/trace.js';

/** @typedef {import('../../lib/network/trace.js').Trace} Trace */

/**
 * @param {{links: Record<string, import('../../lib/network/link-model.js').LinkParams>, routes?: Record<string, string[]>,
 *   traces: Record<string, Trace>}} config
 * @param {Map<string, unknown>} knownLinks  links configured before @param {Map<string, Trace>} knownTraces  traces given before
 */
export function checkRelayConfig({ links, routes, traces }, knownLinks, knownTraces) {
  const linkNames = new Set([...knownLinks.keys(), ...Object.keys(links)]);
  for (const [pair, names] of Object.entries(routes ?? {})) {
    const unknown = names.filter((name) => !linkNames.has(name));
    if (unknown.length > 0) {
      throw new InputError(`relay route "${pair}" names unknown link(s) ${unknown.join(', ')}; configure those links (known: ${[...linkNames].join(', ') || 'none'}).`);
    }
  }
  // A trace with a NaN or infinite timestamp (Infinity crosses IPC as null) would arm the timer every 1 ms forever
  // and deliver nothing: every trace is checked before any link uses it.
  for (const [name, trace] of Object.entries(traces)) checkTrace(trace, `relay trace ${name}`);
  const traceNames = new Set([...knownTraces.keys(), ...Object.keys(traces)]);
  for (const [link, params] of Object.entries(links)) {
    if (params.trace && !traceNames.has(params.trace)) {
      throw new InputError(`relay link ${link} names trace ${params.trace}, which was not given; pass it in traces (known: ${[...traceNames].join(', ') || 'none'}).`);
    }
  }
}
