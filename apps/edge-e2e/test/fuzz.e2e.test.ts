import { connect } from 'node:net';
import OpenAI from 'openai';
import { fuzzBody, fuzzHeaders, MALFORMED_REQUESTS, Random } from './fuzz-inputs';
import { GatewayUnderTest, startGateway } from '@gw/test-stack';

const REQUESTS = 3000;
const PARALLEL = 12;
const TIME_BUDGET_MS = 60_000;
const SEED = 20240604;

/** Sends raw bytes on a fresh connection; resolves with what came back before the server closed it. */
function sendRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes, 'latin1'));
    let answer = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')));
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('fuzz: malformed bodies and headers on loopback', () => {
  let gw: GatewayUnderTest;
  let key: string;

  beforeAll(async () => {
    gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '1000000', CONCURRENCY_LIMIT: '1000' });
    ({ key } = await gw.account('1000'));
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  it(`answers ${REQUESTS} malformed requests without a 5xx or a dropped connection, then serves normally`, async () => {
    const random = new Random(SEED);
    const paths = [
      '/chat/completions',
      '/chat/completions',
      '/chat/completions',
      '/models',
      '/models/%ZZ',
      '/models/vendor-v4-flash?x=%00',
      '/usage',
      '/nowhere/..%2f..',
      `/${'a'.repeat(4000)}`,
    ];
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let sent = 0;
    const deadline = Date.now() + TIME_BUDGET_MS;
    const worker = async () => {
      while (sent < REQUESTS && Date.now() < deadline && failures.length < 5) {
        sent += 1;
        const method = random.chance(0.85) ? 'POST' : random.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
        const path = random.chance(0.85) ? '/chat/completions' : random.pick(paths);
        const body = fuzzBody(random);
        const headers = fuzzHeaders(random, key);
        try {
          const res = await fetch(`${gw.stack.baseUrl}${path}`, {
            method,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : body,
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500) failures.push(`${res.status} for ${method} ${path} ${body.slice(0, 200)}`);
        } catch (err) {
          failures.push(
            `${(err as Error).message} (${String((err as { cause?: unknown }).cause)}) for ${method} ${path} ${body.slice(0, 200)}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    const errorLogs = () => gw.stack.logs.filter((line) => line.includes('"level":"error"'));
    expect({ failures, errorLogs: errorLogs() }).toEqual({ failures: [], errorLogs: [] });
    expect(sent).toBeGreaterThanOrEqual(1000);
    // The mix reached the provider too, not only the gateway's own checks.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(50);

    const port = Number(new URL(gw.stack.baseUrl).port);
    for (const bytes of MALFORMED_REQUESTS) {
      expect((await sendRaw(port, bytes)).slice(0, 12)).toMatch(/^HTTP\/1\.1 4\d\d$/);
    }

    const client = new OpenAI({ baseURL: gw.stack.baseUrl, apiKey: key, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'still here?' }] });
    expect(reply.choices[0].message.content).toBe('Echo: still here?');
    // A prompt that spells a tokenizer's special token is a prompt like any other.
    const spelled = 'say <|endoftext|> please';
    const special = await client.chat.completions.create({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: spelled }] });
    expect(special.choices[0].message.content).toBe(`Echo: ${spelled}`);
    expect(errorLogs()).toEqual([]);
  }, 120_000);
});
