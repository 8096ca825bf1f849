import { GatewayUnderTest, openRaw, RawConnection, replyOf, scrapeMetrics, startGateway, statusOf, eventually } from '@gw/test-stack';

const MAX_CONNECTIONS = 40;
const BUDGET = 3 * 1024 * 1024;
const BODY = 2_000_000;

/** The head of a chat request as a client writes it; `headers` are added as given. */
const chatHead = (headers: Record<string, string | number>) =>
  [
    'POST /v1/chat/completions HTTP/1.1',
    'Host: 127.0.0.1',
    'User-Agent: guard-test/1.0',
    'Content-Type: application/json',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n') + '\r\n\r\n';

const GET_MODELS = 'GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: guard-test/1.0\r\n\r\n';

/**
 * Writes one byte of `piece` every 100 ms until the connection closes; never ends by itself
 * (the pieces would take hours). Resolves with the bytes written once the connection is closed.
 */
function drip(connection: RawConnection, piece: string): Promise<number> {
  let written = 0;
  const timer = setInterval(() => {
    if (connection.isClosed()) return;
    connection.socket.write(piece[written % piece.length]);
    written += 1;
  }, 100);
  return connection.closed.then(() => {
    clearInterval(timer);
    return written;
  });
}

describe('the edge protects itself: connections, slow requests, bodies being read, no body read without a key', () => {
  let gw: GatewayUnderTest;
  let base: string;
  let key: string;

  beforeAll(async () => {
    gw = await startGateway({
      EDGE_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      BODY_BUDGET_BYTES: String(BUDGET),
      HEADERS_TIMEOUT_MS: '1000',
      BODY_TIMEOUT_MS: '2000',
    });
    base = gw.stack.baseUrl;
    ({ key } = await gw.account('50'));
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  // First, while no other connection is open: the bound counts every connection.
  it('closes connections beyond EDGE_MAX_CONNECTIONS as soon as they are accepted, and takes new ones once some close', async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => openRaw(base)));
    const statuses = await Promise.all(
      held.map(async (connection) => {
        connection.socket.write(GET_MODELS);
        return statusOf(await connection.until('\r\n\r\n'));
      }),
    );
    expect(statuses).toEqual(Array(MAX_CONNECTIONS).fill(200));

    const beyond = await Promise.all(Array.from({ length: 10 }, () => openRaw(base)));
    for (const connection of beyond) connection.socket.write(GET_MODELS);
    expect(await Promise.all(beyond.map((connection) => connection.closed))).toEqual(Array(10).fill(''));
    expect((await scrapeMetrics(gw.stack.metricsUrls.edge)).value('edge_connections_refused_total')).toBeGreaterThanOrEqual(10);

    held.pop()?.socket.destroy();
    await eventually(async () => {
      const connection = await openRaw(base);
      connection.socket.write(GET_MODELS);
      const status = await connection.until('\r\n\r\n').then(statusOf, () => 0);
      connection.socket.destroy();
      return status === 200;
    });
    for (const connection of held) connection.socket.destroy();
    await eventually(async () => (await scrapeMetrics(gw.stack.metricsUrls.edge)).value('edge_open_connections') === 0);
  });

  it.each([
    ['no Authorization header', {}, 'MISSING_API_KEY'],
    ['a key that is not one', { Authorization: 'Bearer sk-not-a-key' }, 'INVALID_API_KEY'],
  ])('refuses a request with %s (401) before reading its body', async (_case, auth, code) => {
    const connection = await openRaw(base);
    connection.socket.write(chatHead({ ...auth, 'Content-Length': 1_000_000 }) + '{"model":');
    const reply = replyOf(await connection.until('}}'));
    connection.socket.destroy();
    expect(reply.status).toBe(401);
    expect(reply.headers['x-request-id']).toBeTruthy();
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code } });
  });

  it('cuts off a body drip without a key at the body timeout, after its 401', async () => {
    const connection = await openRaw(base);
    connection.socket.write(chatHead({ 'Content-Length': 100_000 }) + '{');
    expect(statusOf(await connection.until('}}'))).toBe(401);
    const written = await drip(connection, 'aaaa');
    expect(written).toBeLessThan(100_000);
  });

  it('answers a body drip with a key with the front proxy 408 page, and closes the connection', async () => {
    const connection = await openRaw(base);
    connection.socket.write(chatHead({ Authorization: `Bearer ${key}`, 'Content-Length': 100_000 }) + '{');
    const written = await drip(connection, 'aaaa');
    expect(written).toBeLessThan(100_000);
    const reply = replyOf(connection.received());
    expect(reply.status).toBe(408);
    expect(reply.headers['content-type']).toMatch(/^text\/html/);
    expect(reply.headers['x-request-id']).toBeUndefined();
    expect(reply.body).toContain('408');
  });

  it('answers headers that arrive too slowly with the 408 page, and closes the connection', async () => {
    const connection = await openRaw(base);
    connection.socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    await drip(connection, 'abcd');
    const reply = replyOf(connection.received());
    expect(reply.status).toBe(408);
    expect(reply.headers['content-type']).toMatch(/^text\/html/);
  });

  it('refuses at once, with 503 and Retry-After, a body the byte budget has no room for; the budget comes back when a body is read', async () => {
    const { key: own } = await gw.account('50');
    const bodyReading = async () => (await scrapeMetrics(gw.stack.metricsUrls.edge)).value('edge_body_bytes_reading');
    const holding = await openRaw(base);
    holding.socket.write(chatHead({ Authorization: `Bearer ${own}`, 'Content-Length': BODY }) + 'x'.repeat(1000));
    await eventually(async () => (await bodyReading()) === BODY);

    const declared = await openRaw(base);
    declared.socket.write(chatHead({ Authorization: `Bearer ${own}`, 'Content-Length': BODY }) + 'x'.repeat(1000));
    const refused = replyOf(await declared.until('</html>'));
    declared.socket.destroy();
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-request-id']).toBeUndefined();

    const chunked = await openRaw(base);
    const chunk = 'y'.repeat(1_500_000);
    chunked.socket.write(
      chatHead({ Authorization: `Bearer ${own}`, 'Transfer-Encoding': 'chunked' }) + `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    );
    expect(statusOf(await chunked.until('</html>'))).toBe(503);
    chunked.socket.destroy();

    holding.socket.write('x'.repeat(BODY - 1000));
    expect(replyOf(await holding.until('}}')).status).toBe(400);
    holding.socket.destroy();
    await eventually(async () => (await bodyReading()) === 0);

    const after = await openRaw(base);
    after.socket.write(chatHead({ Authorization: `Bearer ${own}`, 'Content-Length': BODY }) + 'x'.repeat(BODY));
    const read = replyOf(await after.until('}}'));
    after.socket.destroy();
    expect(read.status).toBe(400);
    expect(JSON.parse(read.body)).toMatchObject({ error: { code: 'INVALID_JSON' } });
  });
});
