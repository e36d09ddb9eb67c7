// Machines for the Grid e2e test on one host: one network namespace per grid-node, each with its own private address
// on a bridge in the root namespace, which holds the hub and the orchestrator (the bridge's address). Built with the
// emulators' command runner; the kernel flows' guardian removes the namespaces and links if the test process is killed.
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCommandRunner } from '../../orchestrator/emulators/command-runner.js';
import { startGuardian } from '../../orchestrator/lib/system/guardian-protocol.js';
import { ownerFile, recordOwner, releaseOwner } from '../../orchestrator/lib/system/owners.js';

const GUARDIAN_PATH = fileURLToPath(new URL('../../orchestrator/cross/guardian.js', import.meta.url));
/** 10.203.<block>.0/24: a block no address of this host is in. */
const SECOND_OCTET = 203;

/**
 * @typedef {{ netns: string, address: string }} NodeHost
 * @typedef {{ hostAddress: string, nodes: Record<string, NodeHost>, wrap: (label: string) => string[],
 *   netnsInode: (label: string) => number, remove: () => Promise<void> }} NodeNamespaces
 */

/**
 * One namespace per label (`wtbg-<id>-<label>`, loopback up, eth0 on the bridge `wtbg<id>br` with 10.203.b.(10+i)/24
 * and a default route to the bridge's 10.203.b.1).
 * @param {string[]} labels  short words (an interface name is at most 15 bytes)
 * @returns {Promise<NodeNamespaces>}
 */
export async function createNodeNamespaces(labels) {
  const id = randomBytes(3).toString('hex');
  const linkPrefix = `wtbg${id}`;
  const namespacePrefix = `wtbg-${id}-`;
  const { run } = createCommandRunner();
  const used = new Set(Object.values(os.networkInterfaces()).flat().map((entry) => entry?.address ?? ''));
  const block = [...Array(256).keys()].find((b) => ![...used].some((address) => address.startsWith(`10.${SECOND_OCTET}.${b}.`)));
  if (block === undefined) throw new Error(`every 10.${SECOND_OCTET}.x.0/24 is in use here; remove old wtbg* links`);
  const net = `10.${SECOND_OCTET}.${block}`;
  const bridge = `${linkPrefix}br`;
  recordOwner(linkPrefix);
  const guardian = startGuardian(GUARDIAN_PATH, [namespacePrefix, linkPrefix, path.join(os.tmpdir(), `${linkPrefix}-guardian.log`), ownerFile(linkPrefix)]);
  /** @type {Record<string, NodeHost>} */
  const nodes = Object.fromEntries(labels.map((label, index) => [label, { netns: `${namespacePrefix}${label}`, address: `${net}.${10 + index}` }]));
  const remove = async () => {
    for (const { netns } of Object.values(nodes)) {
      const pids = (await run(['ip', 'netns', 'pids', netns], { allowFailure: true, record: false })).stdout.split('\n').filter(Boolean);
      for (const pid of pids) { try { process.kill(Number(pid), 'SIGKILL'); } catch { /* exited */ } }
      await run(['ip', 'netns', 'del', netns], { allowFailure: true });
    }
    await run(['ip', 'link', 'del', 'dev', bridge], { allowFailure: true });
    releaseOwner(linkPrefix);
    guardian.finish();
  };
  try {
    await run(['ip', 'link', 'add', bridge, 'type', 'bridge']);
    await run(['ip', 'addr', 'add', `${net}.1/24`, 'dev', bridge]);
    await run(['ip', 'link', 'set', 'dev', bridge, 'up']);
    for (const [label, { netns, address }] of Object.entries(nodes)) {
      const hostEnd = `${linkPrefix}${label}`;
      await run(['ip', 'netns', 'add', netns]);
      await run(['ip', 'netns', 'exec', netns, 'sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1']);
      await run(['ip', 'link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
      await run(['ip', 'link', 'set', 'dev', hostEnd, 'master', bridge, 'up']);
      await run(['ip', '-n', netns, 'link', 'set', 'dev', 'lo', 'up']);
      await run(['ip', '-n', netns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
      await run(['ip', '-n', netns, 'link', 'set', 'dev', 'eth0', 'up']);
      await run(['ip', '-n', netns, 'route', 'add', 'default', 'via', `${net}.1`]);
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    hostAddress: `${net}.1`,
    nodes,
    wrap: (label) => ['ip', 'netns', 'exec', nodes[label].netns],
    netnsInode: (label) => statSync(`/run/netns/${nodes[label].netns}`).ino,
    remove,
  };
}

/** The inode of a process's network namespace, or null when it has exited. @param {string|number} pid */
export function processNetnsInode(pid) {
  try {
    return statSync(`/proc/${pid}/ns/net`).ino;
  } catch {
    return null;
  }
}
