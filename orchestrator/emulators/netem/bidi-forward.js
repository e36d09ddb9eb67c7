// Firefox's WebDriver BiDi endpoint inside a peer's namespace, reachable from the orchestrator. Firefox listens on
// the namespace's own 127.0.0.1 (it binds no other address), which the root namespace cannot reach; Chromium needs
// no such thing (its pipe crosses namespaces). Each connection to a port on the root's 127.0.0.1 is carried by
// `ip netns exec <ns> socat STDIO TCP:127.0.0.1:<port>` to the same port inside: over the namespace's loopback, so
// none of it crosses the emulated links. Both ends use one port number because Firefox refuses a Host header that
// names another.
import { spawn } from 'node:child_process';
import net from 'node:net';

/**
 * @param {{ netns: string, begin: import('../command-runner.js').BeginCommand }} options  begin: logs each forwarding command
 *   (network.commands)
 * @returns {Promise<{ port: number, close: () => Promise<void>, closeNow: () => void }>}
 */
export async function forwardIntoNamespace({ netns, begin }) {
  /** @type {Set<import('node:child_process').ChildProcess>} */
  const children = new Set();
  let port = 0;
  const server = net.createServer((socket) => {
    const argv = ['ip', 'netns', 'exec', netns, 'socat', 'STDIO', `TCP:127.0.0.1:${port}`];
    const end = begin(argv);
    const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    // Either side ending ends the other: a closed page socket must not leave a socat behind, nor a dead socat a socket.
    child.stdin.on('error', () => socket.destroy());
    socket.on('error', () => child.kill());
    socket.on('close', () => child.kill());
    socket.pipe(child.stdin);
    child.stdout.pipe(socket);
    child.on('error', (error) => { stderr += error.message; socket.destroy(); });
    child.on('close', (code, signal) => {
      children.delete(child);
      socket.destroy();
      // Killed by us when its connection closed: a normal end.
      end(code === 0 || signal === 'SIGTERM', stderr.trim());
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  port = /** @type {net.AddressInfo} */ (server.address()).port;
  const closeNow = () => {
    for (const child of children) child.kill('SIGKILL');
    server.close();
  };
  return {
    port,
    closeNow,
    close: () => new Promise((resolve) => {
      for (const child of children) child.kill();
      server.close(() => resolve(undefined));
    }),
  };
}
