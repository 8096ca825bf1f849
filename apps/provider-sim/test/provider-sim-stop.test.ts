import { createLogger } from '@gw/service-kit';
import { eventually } from '@gw/testing';
import { loadConfig } from '../src/config';
import { startProviderSimApp } from '../src/provider-sim-app';

// Shutdown: running replies finish, keep-alive connections close, and stop() does not wait out the grace time.
it('lets running replies finish on stop, then closes their connections at once', async () => {
  const env = { PROVIDER_SIM_PORT: '0', BIND_HOST: '127.0.0.1', SHUTDOWN_GRACE_MS: '10000' };
  const app = await startProviderSimApp(
    loadConfig(env),
    createLogger('provider-sim', 'error', () => undefined),
  );
  const ask = (stream: boolean) =>
    fetch(`http://127.0.0.1:${app.port}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content: 'a b [[sim:delay_ms=150,piece_delay_ms=20]]' }] }),
    }).then((res) => res.text());
  const replies = Promise.all([ask(false), ask(true)]);
  // Both replies running before the stop.
  const inFlight = async () => ((await (await fetch(`http://127.0.0.1:${app.port}/sim/stats`)).json()) as { inFlight: number }).inFlight;
  await eventually(inFlight, (n) => n >= 2, { intervalMs: 5 });
  const started = Date.now();
  await app.stop();
  // Far above a stop's normal 150 ms, below the 5 s a stop waiting on idle keep-alive connections takes.
  expect(Date.now() - started).toBeLessThan(2000);
  const [whole, stream] = await replies;
  expect(JSON.parse(whole).choices[0].message.content).toBe('Echo: a b');
  expect(stream.endsWith('data: [DONE]\n\n')).toBe(true);
});
