import { defineSettings, GRPC_SECURITY_SETTINGS, setting } from '@gw/service-kit';
import { appEnv, appEnvOf } from './app-env';

describe('appEnvOf', () => {
  it('finds every variable of the tables, with the defaults of the whole-number ones', () => {
    const table = defineSettings({
      EDGE_PORT: setting.int(8080, 'port'),
      DATABASE_URL: setting.optional('url'),
      LOG_LEVEL: setting.string('info', 'level'),
      FREE_TIER_ENABLED: setting.bool(true, 'on'),
      BODY_LIMIT_BYTES: setting.int(2 * 1024 * 1024, 'body'),
    });
    const { names, intDefaults } = appEnvOf([table, GRPC_SECURITY_SETTINGS]);
    expect([...names]).toEqual([
      'BODY_LIMIT_BYTES',
      'DATABASE_URL',
      'DATA_DIR',
      'EDGE_PORT',
      'FREE_TIER_ENABLED',
      'GRPC_INSECURE',
      'LOG_LEVEL',
      'TLS_DIR',
      'TLS_REFRESH_MS',
    ]);
    expect(Object.fromEntries(intDefaults)).toEqual({ EDGE_PORT: 8080, BODY_LIMIT_BYTES: 2_097_152, TLS_REFRESH_MS: 60_000 });
  });
});

describe('appEnv', () => {
  it("reads an app's own table, and gRPC security's for an app that speaks gRPC only", () => {
    expect([...appEnv('auth-service').names]).toEqual(expect.arrayContaining(['AUTH_PORT', 'GRPC_INSECURE', 'TLS_DIR', 'TLS_REFRESH_MS']));
    expect(appEnv('edge').intDefaults.get('SHUTDOWN_GRACE_MS')).toBe(30_000);
    expect([...appEnv('provider-sim').names]).toEqual([
      'BIND_HOST',
      'LOG_LEVEL',
      'PROVIDER_SIM_API_KEY',
      'PROVIDER_SIM_PORT',
      'SHUTDOWN_GRACE_MS',
    ]);
  });
});
