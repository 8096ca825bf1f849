import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { startPauseMonitor } from './pause-monitor';

/**
 * The floor the gateway is held against: a proxy that does no accounting at all. node:http in
 * front, undici behind, the request's JSON parsed and written again, a whole reply's JSON parsed
 * and written again, a stream passed on piece by piece. Run by the bench as its own process, which
 * asks it for its pauses over the IPC channel (off the request path).
 */
const port = Number(process.env.FLOOR_PORT ?? 0);
const upstream = new URL(process.env.FLOOR_UPSTREAM ?? 'http://127.0.0.1:8090/v1');
const pool = new Pool(upstream.origin, { connections: 4096, pipelining: 1, keepAliveTimeout: 60_000 });
const path = `${upstream.pathname.replace(/\/$/, '')}/chat/completions`;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = JSON.stringify(await readJson(req));
  const reply = await pool.request({
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer floor' },
    body,
  });
  const type = String(reply.headers['content-type'] ?? 'application/json');
  if (type.startsWith('text/event-stream')) {
    res.writeHead(reply.statusCode, { 'content-type': type, 'cache-control': 'no-cache' });
    for await (const piece of reply.body) res.write(piece);
    res.end();
    return;
  }
  const text = JSON.stringify(await reply.body.json());
  res.writeHead(reply.statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

const server = createServer((req, res) => {
  relay(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : port}\n`);
});
const pauses = startPauseMonitor();
process.on('message', (message) => {
  if (message === 'pauses') process.send?.(pauses.read());
});
process.on('SIGTERM', () => server.close(() => void pool.close().then(() => process.exit(0))));
