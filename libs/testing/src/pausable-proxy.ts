import { AddressInfo, createServer, Socket } from 'node:net';

/** A TCP proxy to a real server that can stall all traffic, as a black-holed network does. */
export interface PausableProxy {
  /** The target URL, pointed at the proxy. */
  url: string;
  /** From now on nothing is read in either direction; connections stay open and bytes wait. */
  stall(): void;
  /** Lets the waiting bytes, and all later ones, through again. */
  resume(): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (on `port`, or a random one) in front of the server named by `targetUrl`. */
export async function startPausableProxy(targetUrl: string, port = 0): Promise<PausableProxy> {
  const target = new URL(targetUrl);
  let stalled = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (stalled) socket.pause();
  };
  const server = createServer((client) => {
    const upstream = new Socket();
    track(client);
    track(upstream);
    upstream.connect(Number(target.port), target.hostname);
    client.pipe(upstream);
    upstream.pipe(client);
    if (stalled) {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const proxied = new URL(targetUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.toString(),
    stall: () => {
      stalled = true;
      for (const socket of sockets) socket.pause();
    },
    resume: () => {
      stalled = false;
      for (const socket of sockets) socket.resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
