import { request } from 'node:http';
import { join } from 'node:path';
import { GatewayUnderTest, openRaw, scrapeMetrics, startGateway, eventually } from '@gw/test-stack';

const MB = 1024 * 1024;
const CHAT = '/v1/chat/completions';

/** Runs `batch` until `count` are done, `atOnce` at a time. */
async function inBatches(count: number, atOnce: number, batch: (size: number) => Promise<void>): Promise<void> {
  for (let done = 0; done < count; done += atOnce) await batch(Math.min(atOnce, count - done));
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('nothing lost, nothing leaked: callers that go away early leave nothing behind in the edge', () => {
  let gw: GatewayUnderTest;
  let key: string;
  let chats = 0;
  let streams = 0;

  beforeAll(async () => {
    gw = await startGateway(
      { RATE_LIMIT_PER_MINUTE: '1000000', CONCURRENCY_LIMIT: '1000' },
      { execArgv: { edge: ['--expose-gc', '--require', join(__dirname, 'memory-probe.cjs')] }, ipc: ['edge'] },
    );
    ({ key } = await gw.account('100000'));
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  const edgeMetric = async (name: string, labels?: Record<string, string>) =>
    (await scrapeMetrics(gw.stack.metricsUrls.edge)).value(name, labels);

  /** The edge's memory after full garbage collections in it (see memory-probe.cjs). */
  const edgeMemory = () =>
    new Promise<NodeJS.MemoryUsage>((resolve) => {
      const [edge] = gw.stack.processes('edge');
      // The edge also says when it is ready (service-kit's READY_MESSAGE), perhaps only now.
      const answer = (message: unknown) => {
        const memory = (message as { memory?: NodeJS.MemoryUsage } | null)?.memory;
        if (!memory) return;
        edge.off('message', answer);
        resolve(memory);
      };
      edge.on('message', answer);
      edge.send('memory');
    });

  /**
   * `size` uploads that declare `declared` bytes and send `sent`, left once the edge is reading
   * every one of their bodies.
   */
  const abortedUploads = (declared: number, sent: number) => async (size: number) => {
    const uploads = await Promise.all(range(size).map(() => openRaw(gw.stack.baseUrl)));
    const head = `POST ${CHAT} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: memory-test/1.0\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;
    for (const upload of uploads) upload.socket.write(head + 'x'.repeat(sent));
    chats += size;
    await eventually(async () => (await edgeMetric('edge_body_bytes_reading')) === size * declared);
    for (const upload of uploads) upload.socket.destroy();
    await eventually(async () => (await edgeMetric('edge_body_bytes_reading')) === 0);
  };

  /** A stream left by its caller as soon as its first piece arrived; the provider goes on for about half a second. */
  const abandonedStream = () =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(`${gw.stack.baseUrl}/chat/completions`);
      const body = JSON.stringify({
        model: 'vendor-v4-flash',
        stream: true,
        messages: [{ role: 'user', content: 'go on [[sim:words=40,piece_delay_ms=12]]' }],
      });
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'memory-test/1.0' };
      const req = request({ host: url.hostname, port: url.port, path: CHAT, method: 'POST', agent: false, headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.end(body);
    });
  const abandonedStreams = async (size: number) => {
    chats += size;
    streams += size;
    await Promise.all(range(size).map(abandonedStream));
  };

  /** Every request is over in the edge: replies read to the end, logged, and settled. */
  const settled = () =>
    eventually(
      async () =>
        (await edgeMetric('edge_requests_total', { route: CHAT })) === chats &&
        (await edgeMetric('edge_settlements_total')) === streams &&
        (await edgeMetric('edge_body_bytes_reading')) === 0 &&
        (await gw.simStats()).inFlight === 0,
      { timeoutMs: 60_000 },
    );

  it('2,000 aborted uploads, 50 aborted 2 MB uploads and 500 streams abandoned after the first piece leave heap and external memory as they were', async () => {
    await inBatches(300, 50, abortedUploads(20_000, 10_000));
    await inBatches(100, 50, abandonedStreams);
    await settled();
    const before = await edgeMemory();

    await inBatches(2000, 50, abortedUploads(20_000, 10_000));
    // 25 bodies of 2 MB at once stay within the default body budget (64 MiB).
    await inBatches(50, 25, abortedUploads(2 * 1000 * 1000, 1000 * 1000));
    await inBatches(500, 50, abandonedStreams);
    await settled();
    const after = await edgeMemory();

    const figures = (m: NodeJS.MemoryUsage) =>
      `heapUsed ${(m.heapUsed / MB).toFixed(2)} MB, external ${(m.external / MB).toFixed(2)} MB, arrayBuffers ${(m.arrayBuffers / MB).toFixed(2)} MB, rss ${(m.rss / MB).toFixed(2)} MB`;
    console.log(
      `edge memory after forced GC\n  before: ${figures(before)}\n  after:  ${figures(after)}\n  growth: heapUsed ${((after.heapUsed - before.heapUsed) / MB).toFixed(2)} MB, external ${((after.external - before.external) / MB).toFixed(2)} MB`,
    );
    expect(after.heapUsed - before.heapUsed).toBeLessThan(5 * MB);
    expect(after.external - before.external).toBeLessThan(5 * MB);
  }, 240_000);
});
