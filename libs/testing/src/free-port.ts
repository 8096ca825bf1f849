import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports below this are left to well-known services. */
const LOWEST = 10_000;

/**
 * The first port the kernel hands out as a connection's own (source) port. A port the OS picked
 * with `listen(0)` comes from that range, so any outgoing connection of another process (a test's
 * Postgres client, say) can take it before the stack under test binds it; ports below it are only
 * ever taken by a process that asks for them by number.
 */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(low);
    return Number.isInteger(port) && port > LOWEST + 1_000 ? port : 32_768;
  } catch {
    return 32_768;
  }
}

const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, outside the kernel's range for connections'
 * own ports, and never handed out before by this process.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralStart();
  for (let tries = 0; tries < 200; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${LOWEST} and ${high} on 127.0.0.1`);
}
