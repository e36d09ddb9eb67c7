/**
 * Names, addresses and iperf3 tests of a run's kernel flows (contract section 4). Pure: no I/O.
 *
 * Each flow gets two namespaces, left (`wtbx-<id>-<i>l`) and right (`wtbx-<id>-<i>r`), each reached only through a
 * TUN device (`wx<id><i>l`, `wx<id><i>r`) with an address of the flow's /30 (10.203.<i>.1 left, .2 right). The iperf3
 * client runs on the sending side (left for `forward`, right for `backward`), so iperf3's receiver is always its
 * server. One iperf3 server per test (a long flow has one test, a short-TCP flow one per burst), each on its own port.
 */
import { HarnessError } from '../lib/system/errors.js';
import { MAX_KERNEL_FLOWS } from '../lib/input/limits.js';
import { shortRunId } from '../lib/system/run-id.js';


/** Every namespace of the kernel flows starts with this (netem's are `wtb-`, so neither sweep takes the other's). */
export const NAMESPACE_PREFIX = 'wtbx-';
/** Every TUN device starts with this while it is still in the root namespace. */
export const LINK_PREFIX = 'wx';
/** A /30 per flow in 10.203.<flow index>.0/24; the namespaces are private, so runs cannot collide. */
const ADDRESS_PREFIX = '10.203';
export const FIRST_PORT = 5201;
/** UDP payload of iperf3's datagrams: one IP packet (1228 bytes) inside the TUN's 1500-byte MTU. */
export const UDP_PAYLOAD_BYTES = 1200;
export const TUN_MTU = 1500;

/**
 * @typedef {object} KernelFlow  a normalised flow of kind tcp, tcp-short or udp (lib/cross/flows.js), times on the media clock
 * @property {string} name
 * @property {'tcp'|'tcp-short'|'udp'} kind
 * @property {'forward'|'backward'} [direction]  forward (default): left -> right
 * @property {number} startS
 * @property {number} stopS
 * @property {number} [rateKbps]  udp: the constant bitrate
 * @property {number} [windowBytes]  tcp, tcp-short: iperf3 -w, the socket buffers that cap the window
 * @property {{atS: number, bytes: number}[]} [bursts]  tcp-short: lib/cross/flows.js shortTcpBursts(flow)
 */

/**
 * @typedef {object} KernelTest  one iperf3 client/server pair
 * @property {number} index  within the flow
 * @property {number} atS  when the client starts, media clock
 * @property {number} port
 * @property {'tcp'|'udp'} protocol
 * @property {string[]} clientArgs  after `iperf3 -c <address> -p <port>`
 */

/**
 * @typedef {object} Side
 * @property {string} namespace
 * @property {string} tun
 * @property {string} address
 */

/**
 * @typedef {object} KernelFlowPlan
 * @property {KernelFlow} flow
 * @property {Side} left
 * @property {Side} right
 * @property {Side} client  the sending side
 * @property {Side} server  the receiving side
 * @property {KernelTest[]} tests
 */

/**
 * @param {KernelFlow} flow
 * @param {{congestionControl: string}} options
 * @returns {KernelTest[]}
 */
function testsOf(flow, { congestionControl }) {
  const durationS = String(Math.max(1, Math.round(flow.stopS - flow.startS)));
  const tcp = ['-C', congestionControl, ...(flow.windowBytes === undefined ? [] : ['-w', String(flow.windowBytes)])];
  switch (flow.kind) {
    case 'tcp':
      return [{ index: 0, atS: flow.startS, port: FIRST_PORT, protocol: 'tcp', clientArgs: [...tcp, '-t', durationS] }];
    case 'udp':
      if (flow.rateKbps === undefined || !(flow.rateKbps > 0)) throw new HarnessError(`kernel flow "${flow.name}": a udp flow needs rateKbps > 0`);
      return [{
        index: 0, atS: flow.startS, port: FIRST_PORT, protocol: 'udp',
        clientArgs: ['-u', '-b', `${flow.rateKbps}k`, '-l', String(UDP_PAYLOAD_BYTES), '-t', durationS],
      }];
    case 'tcp-short':
      if (!Array.isArray(flow.bursts) || flow.bursts.length === 0) {
        throw new HarnessError(`kernel flow "${flow.name}": a tcp-short flow needs bursts (lib/cross/flows.js shortTcpBursts)`);
      }
      return flow.bursts.map(({ atS, bytes }, index) => ({
        index, atS, port: FIRST_PORT + index, protocol: 'tcp', clientArgs: [...tcp, '-n', String(Math.round(bytes))],
      }));
    default:
      throw new HarnessError(`kernel flow "${flow.name}": kind ${JSON.stringify(flow.kind)} is not tcp, tcp-short or udp`);
  }
}

/**
 * @param {KernelFlow[]} flows
 * @param {{runId: string, congestionControl?: string}} options
 * @returns {{id: string, namespacePrefix: string, linkPrefix: string, flows: KernelFlowPlan[]}}
 */
export function planKernelFlows(flows, { runId, congestionControl = 'cubic' }) {
  if (flows.length > MAX_KERNEL_FLOWS) throw new HarnessError(`at most ${MAX_KERNEL_FLOWS} kernel flows per run, got ${flows.length}`);
  const id = shortRunId(runId);
  return {
    id,
    namespacePrefix: `${NAMESPACE_PREFIX}${id}-`,
    linkPrefix: `${LINK_PREFIX}${id}`,
    flows: flows.map((flow, i) => {
      /** @param {'l'|'r'} side @param {number} host */
      const side = (side, host) => ({
        namespace: `${NAMESPACE_PREFIX}${id}-${i}${side}`, tun: `${LINK_PREFIX}${id}${i}${side}`, address: `${ADDRESS_PREFIX}.${i}.${host}`,
      });
      const left = side('l', 1);
      const right = side('r', 2);
      const backward = flow.direction === 'backward';
      const tests = testsOf(flow, { congestionControl });
      return { flow, left, right, client: backward ? right : left, server: backward ? left : right, tests };
    }),
  };
}
