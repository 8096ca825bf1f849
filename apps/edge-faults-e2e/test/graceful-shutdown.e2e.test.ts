import { connect } from 'node:net';
import { Client as PgClient } from 'pg';
import { GatewayUnderTest, startGateway, eventually } from '@gw/test-stack';

const decoder = new TextDecoder();

/** Opens a TCP connection to a port on loopback: resolves once connected, rejects with the socket error. */
function tcpConnect(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/** The text of each `delta.content` of a stream's chunks, in order. */
const contentOf = (text: string) =>
  text
    .split('\n\n')
    .filter((event) => event.startsWith('data: {'))
    .map(
      (event) =>
        (JSON.parse(event.slice('data: '.length)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
    )
    .join('');

describe('graceful shutdown: SIGTERM drains, settles and exits 0', () => {
  let gw: GatewayUnderTest;
  let pg: PgClient;

  beforeAll(async () => {
    gw = await startGateway({ SETTLE_POLL_MS: '50' });
    pg = new PgClient({ connectionString: gw.stack.env.DATABASE_URL });
    await pg.connect();
  }, 90_000);

  afterAll(async () => {
    await pg?.end();
    await gw?.stop();
  }, 60_000);

  it('edge: a stream under way finishes, /readyz turns 503, new connections are refused, the stream is billed once, exit 0', async () => {
    const account = await gw.account('5');
    const edgePort = Number(new URL(gw.stack.baseUrl).port);
    const readyz = gw.stack.metricsUrls.edge.replace(/\/metrics$/, '/readyz');
    expect((await fetch(readyz)).status).toBe(200);

    // 10 words 200 ms apart: the stream runs about two seconds after the SIGTERM.
    const res = await gw.chat(account.key, {
      model: 'vendor-v4-flash',
      stream: true,
      messages: [{ role: 'user', content: 'drain me [[sim:words=10,piece_delay_ms=200]]' }],
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = decoder.decode((await reader.read()).value, { stream: true });

    const exited = gw.stack.stopApp('edge');
    await eventually(async () => (await fetch(readyz)).status === 503, { timeoutMs: 5_000 });
    await expect(tcpConnect(edgePort)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value, { stream: true });
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(contentOf(text).split(' ')).toHaveLength(10);
    expect(await exited).toEqual([0]);
    const line = gw.stack.logs.find((l) => l.includes('"msg":"request"') && l.includes(`"accountId":"${account.accountId}"`));
    expect(JSON.parse(line ?? '{}')).toMatchObject({ service: 'edge', status: 200, code: 'ok', completionTokens: 10 });

    const ledger = async () =>
      (await pg.query<{ amount_micro: string }>('SELECT amount_micro::text FROM billing.ledger WHERE account_id = $1', [account.accountId]))
        .rows;
    await eventually(async () => (await ledger()).length > 0);
    const rows = await ledger();
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].amount_micro)).toBeGreaterThan(0);
    expect(await gw.balanceMicro(account.accountId)).toBe(5_000_000 - Number(rows[0].amount_micro));
  });

  it('auth-, quota- and billing-service and provider-sim exit 0 on SIGTERM', async () => {
    for (const app of ['auth-service', 'quota-service', 'billing-service', 'provider-sim']) {
      expect(await gw.stack.stopApp(app)).toEqual([0]);
    }
  });
});
