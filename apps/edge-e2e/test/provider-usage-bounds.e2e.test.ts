import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { MAX_COMPLETION_TOKENS, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { GatewayUnderTest, startGateway, eventually } from '@gw/test-stack';

/** What the stand-in provider reports as `usage`, by the text of the request's last message. */
const REPORTED: Record<string, { prompt_tokens: number; completion_tokens: number }> = {
  huge: { prompt_tokens: 2 ** 62, completion_tokens: 2 ** 62 },
  fractional: { prompt_tokens: 10.2, completion_tokens: 3.5 },
};

async function readJson(req: IncomingMessage): Promise<{ model: string; messages: { content: string }[] }> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8'));
}

/** A provider that answers every chat request whole, with the usage REPORTED names. */
function startReportingProvider(): Promise<Server> {
  const server = createServer((req, res) => {
    void readJson(req).then((body) => {
      const usage = REPORTED[body.messages[body.messages.length - 1].content];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-bounds',
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Usage the provider reports past what quota- and billing-service take (docs/api.md#limits: a prompt within
 * the context window, a reply within 32,768 tokens), or not in whole numbers: the edge bills it at
 * the nearest figure they take, so the bill lands instead of being refused (or retried) forever.
 */
describe('provider usage past the bounds: billed at the bounds, never lost', () => {
  let provider: Server;
  let gw: GatewayUnderTest;

  beforeAll(async () => {
    provider = await startReportingProvider();
    gw = await startGateway({ PROVIDER_BASE_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1` });
  }, 90_000);

  afterAll(async () => {
    await gw?.stop();
    await new Promise((resolve) => provider?.close(resolve));
  }, 60_000);

  const ask = (key: string, content: string) => gw.chat(key, { model: 'vendor-v4-flash', messages: [{ role: 'user', content }] });

  it('bills 2^62 reported tokens as a context window plus 32,768, from the balance', async () => {
    const account = await gw.account('5');
    const res = await ask(account.key, 'huge');
    expect(res.status).toBe(200);
    expect(await gw.billedTokens(account, (total) => total > 0)).toBe(MAX_PROMPT_TOKENS + MAX_COMPLETION_TOKENS);
    // Charged once billing-service has the bill: at most what those tokens cost (1 and 4 LYD per
    // million), and no more than the request held.
    await eventually(async () => (await gw.balanceMicro(account.accountId)) < 5_000_000);
    expect(await gw.balanceMicro(account.accountId)).toBeGreaterThanOrEqual(5_000_000 - (MAX_PROMPT_TOKENS + 4 * MAX_COMPLETION_TOKENS));
  });

  it('bills fractions of tokens rounded up to whole tokens', async () => {
    const account = await gw.account('5');
    expect((await ask(account.key, 'fractional')).status).toBe(200);
    expect(await gw.billedTokens(account, (total) => total > 0)).toBe(11 + 4);
  });
});
