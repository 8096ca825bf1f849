import { loadConfig } from './config';

describe('loadConfig', () => {
  it('has a default beside every variable of the public surface', () => {
    expect(loadConfig({})).toMatchObject({
      providerBaseUrl: 'http://127.0.0.1:8090/v1',
      providerSilenceMs: 120_000,
      providerReadTimeoutMs: 600_000,
      breaker: { failureThreshold: 5, windowMs: 60_000, cooldownMs: 30_000 },
      bodyLimitBytes: 2 * 1024 * 1024,
      blockLibraryClients: true,
      blockedUserAgents: ['Python-urllib', 'Go-http-client', 'Java-http-client', 'Java', 'Ruby', 'Dart'],
    });
  });

  it('reads the provider, breaker and front guard settings', () => {
    const config = loadConfig({
      PROVIDER_BASE_URL: 'https://api.vendor.test/v1/',
      PROVIDER_SILENCE_MS: '1000',
      PROVIDER_READ_TIMEOUT_MS: '5000',
      BREAKER_FAILURE_THRESHOLD: '3',
      BREAKER_WINDOW_MS: '10000',
      BREAKER_COOLDOWN_MS: '2000',
      BLOCK_LIBRARY_CLIENTS: 'false',
      BLOCKED_USER_AGENTS: ' libwww-perl , Wget,,',
    });
    expect(config).toMatchObject({
      providerBaseUrl: 'https://api.vendor.test/v1',
      providerSilenceMs: 1000,
      providerReadTimeoutMs: 5000,
      breaker: { failureThreshold: 3, windowMs: 10_000, cooldownMs: 2000 },
      blockLibraryClients: false,
      blockedUserAgents: ['libwww-perl', 'Wget'],
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('stops on a value it cannot read', () => {
    expect(() => loadConfig({ BREAKER_COOLDOWN_MS: '30s' })).toThrow(/BREAKER_COOLDOWN_MS/);
    expect(() => loadConfig({ BLOCK_LIBRARY_CLIENTS: 'sometimes' })).toThrow(/BLOCK_LIBRARY_CLIENTS/);
  });
});
