import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { BodyBudget } from './body-budget';
import { FrontProxyReply } from '../replies/front-proxy-reply';
import { CallerLeftError, readBody } from './read-body';

describe('readBody', () => {
  let server: Server;
  let port: number;
  let arrived: Promise<IncomingMessage>;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    server = createServer();
    arrived = new Promise((resolve) => server.once('request', (req: IncomingMessage) => resolve(req)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (text: string): Socket => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.on('error', () => undefined);
    sockets.push(socket);
    return socket;
  };
  const head = (length: number) => `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`;

  it('reads a whole body and gives its bytes back to the budget', async () => {
    const budget = new BodyBudget(1000);
    send(head(5) + 'hello');
    const body = await readBody(await arrived, 100, budget);
    expect(body.toString()).toBe('hello');
    expect(budget.inUse).toBe(0);
  });

  it('settles, lets go and gives the budget back when the caller leaves in the middle of the body', async () => {
    const budget = new BodyBudget(1000);
    const socket = send(head(500) + 'part');
    const req = await arrived;
    const reading = readBody(req, 1000, budget);
    expect(budget.inUse).toBe(500);
    socket.destroy();
    await expect(reading).rejects.toBeInstanceOf(CallerLeftError);
    expect(budget.inUse).toBe(0);
    expect(['data', 'end', 'close'].map((event) => req.listenerCount(event))).toEqual([0, 0, 0]);
  });

  it('refuses at once a request whose caller left before its body was read', async () => {
    const budget = new BodyBudget(1000);
    const socket = send(head(500) + 'part');
    const req = await arrived;
    const closed = new Promise((resolve) => req.once('close', resolve));
    socket.destroy();
    await closed;
    await expect(readBody(req, 1000, budget)).rejects.toBeInstanceOf(CallerLeftError);
    expect(budget.inUse).toBe(0);
  });

  it('answers 503 when the budget has no room for a declared body, or for the next piece of a chunked one', async () => {
    const budget = new BodyBudget(1000);
    budget.take(600);
    send(head(500) + 'part');
    await expect(readBody(await arrived, 1000, budget)).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    expect(budget.inUse).toBe(600);

    arrived = new Promise((resolve) => server.once('request', (req: IncomingMessage) => resolve(req)));
    send(`POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1f4\r\n${'c'.repeat(500)}\r\n`);
    const refused = await readBody(await arrived, 1000, budget).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(FrontProxyReply);
    expect(refused).toMatchObject({ status: 503 });
    expect(budget.inUse).toBe(600);
  });
});
