import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { ConnectionTracker, trackConnections } from './connection-tracker';

/** Resolves once `emitter` has emitted `event`. */
const once = (emitter: NodeJS.EventEmitter, event: string) => new Promise<void>((resolve) => emitter.once(event, () => resolve()));

describe('trackConnections', () => {
  let server: Server;
  let tracker: ConnectionTracker;
  let port: number;
  const arrived: { req: IncomingMessage; res: ServerResponse }[] = [];
  const requestArrived = () => once(server, 'request');

  beforeEach(async () => {
    arrived.length = 0;
    // The handler never answers: each request stays in progress until its caller leaves.
    server = createServer((req, res) => arrived.push({ req, res }));
    tracker = trackConnections(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const open = async (): Promise<Socket> => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return socket;
  };

  it('forgets a connection whose caller left in the middle of a request body', async () => {
    const sockets: Socket[] = [];
    for (let i = 0; i < 3; i += 1) {
      const socket = await open();
      const arriving = requestArrived();
      socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npart of the body');
      await arriving;
      sockets.push(socket);
    }
    expect(tracker.openConnections()).toBe(3);
    const replies = arrived.map(({ res }) => once(res, 'close'));
    for (const socket of sockets) socket.destroy();
    await Promise.all(replies);
    expect(tracker.openConnections()).toBe(0);
  });

  it('forgets a connection that closes after its reply was sent', async () => {
    const socket = await open();
    const arriving = requestArrived();
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await arriving;
    const sent = once(arrived[0].res, 'close');
    arrived[0].res.end('done');
    await sent;
    const closed = once(arrived[0].req.socket, 'close');
    socket.destroy();
    await closed;
    expect(tracker.openConnections()).toBe(0);
  });

  it('closes idle connections at once and busy ones when their request ends', async () => {
    const idle = await open();
    const busy = await open();
    const arriving = requestArrived();
    busy.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await arriving;
    const idleClosed = once(idle, 'close');
    tracker.closeUnused();
    await idleClosed;
    expect(busy.destroyed).toBe(false);
    const busyClosed = once(busy, 'close');
    busy.on('data', () => undefined);
    arrived[0].res.end('last');
    await busyClosed;
    expect(arrived[0].res.getHeader('connection')).toBe('close');
  });
});
