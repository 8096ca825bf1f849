import { parseAppEnv } from './app-env';

describe('parseAppEnv', () => {
  it('finds every variable read through the env readers, with whole-number defaults', () => {
    const { names, intDefaults } = parseAppEnv(`
      port: readInt(env, 'EDGE_PORT', 8080),
      url: readOptional(env, 'DATABASE_URL'),
      level: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
      on: readBool(env, 'FREE_TIER_ENABLED', true),
      grace: readInt(env, 'SHUTDOWN_GRACE_MS', 30_000),
      body: readInt(env, 'BODY_LIMIT_BYTES', 2 * 1024 * 1024),
      notEnv: readInt(other, 'NOT_READ', 1),
    `);
    expect([...names].sort()).toEqual([
      'BODY_LIMIT_BYTES',
      'DATABASE_URL',
      'EDGE_PORT',
      'FREE_TIER_ENABLED',
      'LOG_LEVEL',
      'SHUTDOWN_GRACE_MS',
    ]);
    expect(Object.fromEntries(intDefaults)).toEqual({ EDGE_PORT: 8080, SHUTDOWN_GRACE_MS: 30000 });
  });

  it('sees a reader called inside the default of another', () => {
    const { names } = parseAppEnv(`const dir = readString(env, 'TLS_DIR', join(readString(env, 'DATA_DIR', '.data'), 'tls'));`);
    expect([...names].sort()).toEqual(['DATA_DIR', 'TLS_DIR']);
  });

  describe('with the source of grpc-security.ts', () => {
    const security = `
      export function readGrpcSecurity(env: Env, identity: string): GrpcSecurity {
        if (readBool(env, 'GRPC_INSECURE', false)) return { kind: 'insecure' };
        const dataDir = readString(env, 'DATA_DIR', '.data');
        const dir = readString(env, 'TLS_DIR', join(dataDir, 'tls', identity));
        return { kind: 'mtls', dir, refreshMs: readInt(env, 'TLS_REFRESH_MS', 60_000) };
      }`;

    it('counts what readGrpcSecurity reads as read by a config.ts that calls it', () => {
      const { names, intDefaults } = parseAppEnv(
        `port: readInt(env, 'AUTH_PORT', 50051), grpc: readGrpcSecurity(env, 'auth-service'),`,
        security,
      );
      expect([...names].sort()).toEqual(['AUTH_PORT', 'DATA_DIR', 'GRPC_INSECURE', 'TLS_DIR', 'TLS_REFRESH_MS']);
      expect(Object.fromEntries(intDefaults)).toEqual({ AUTH_PORT: 50051, TLS_REFRESH_MS: 60000 });
    });

    it('leaves them out of a config.ts that does not call it', () => {
      expect([...parseAppEnv(`port: readInt(env, 'PROVIDER_SIM_PORT', 8090),`, security).names]).toEqual(['PROVIDER_SIM_PORT']);
    });
  });
});
