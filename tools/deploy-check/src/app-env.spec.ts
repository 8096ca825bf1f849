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
    expect([...names].sort()).toEqual(['BODY_LIMIT_BYTES', 'DATABASE_URL', 'EDGE_PORT', 'FREE_TIER_ENABLED', 'LOG_LEVEL', 'SHUTDOWN_GRACE_MS']);
    expect(Object.fromEntries(intDefaults)).toEqual({ EDGE_PORT: 8080, SHUTDOWN_GRACE_MS: 30000 });
  });
});
