import { loadConfig } from './config';

describe('loadConfig', () => {
  it('has a default beside every variable of the public surface', () => {
    expect(loadConfig({})).toMatchObject({
      providerBaseUrl: 'http://127.0.0.1:8090/v1',
      providerSilenceMs: 120_000,
      providerReadTimeoutMs: 600_000,
      breaker: { failureThreshold: 5, windowMs: 60_000, cooldownMs: 30_000 },
      bodyLimitBytes: 2 * 1024 * 1024,
      guard: {
        maxConnections: 4096,
        bodyBudgetBytes: 64 * 1024 * 1024,
        headersTimeoutMs: 10_000,
        bodyTimeoutMs: 60_000,
        keepAliveTimeoutMs: 65_000,
      },
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

  it('reads the guard of the public server', () => {
    const config = loadConfig({
      EDGE_MAX_CONNECTIONS: '100',
      BODY_BUDGET_BYTES: '3000000',
      HEADERS_TIMEOUT_MS: '2000',
      BODY_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '7000',
    });
    expect(config.guard).toEqual({
      maxConnections: 100,
      bodyBudgetBytes: 3_000_000,
      headersTimeoutMs: 2000,
      bodyTimeoutMs: 5000,
      keepAliveTimeoutMs: 7000,
    });
  });

  it('refuses a guard that would turn away bodies the limit allows, or headers given longer than the whole request', () => {
    expect(() => loadConfig({ BODY_BUDGET_BYTES: '1000000' })).toThrow(/BODY_BUDGET_BYTES/);
    expect(() => loadConfig({ BODY_LIMIT_BYTES: '1000', BODY_BUDGET_BYTES: '999' })).toThrow(/BODY_BUDGET_BYTES/);
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '70000' })).toThrow(/HEADERS_TIMEOUT_MS/);
  });
});
