import { createServer } from 'node:net';

function inUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

/** Those of `ports` that something still listens on at 127.0.0.1. */
export async function portsInUse(ports: number[]): Promise<number[]> {
  const taken = await Promise.all(ports.map(inUse));
  return ports.filter((_, i) => taken[i]);
}
