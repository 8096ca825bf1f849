/** Per-test-file PostgreSQL databases and Redis key spaces on shared (or container) servers. */
export { createTestDatabase, type TestDatabase } from './test-database';
export { createTestRedis, type TestRedis } from './test-redis';
export { eventually, type EventuallyOptions } from './eventually';
export { freePort } from './free-port';
export { startPausableProxy, type PausableProxy } from './pausable-proxy';
export { startOwnRedisServer, type OwnRedisServer } from './own-redis-server';
export { repoRoot, testTlsDir, testTlsRoot } from './test-tls';
export { startTestDnsServer, type TestDnsServer } from './test-dns-server';
export { launchChromium, screenshotDir } from './browser';
export { OtlpReceiver, type ReceivedExport, type ReceivedSpan } from './otlp-receiver';
export { readPromql, type PromqlReading } from './promql';
export { createTestRedisCluster, startRedisCluster, type TestRedisCluster, type TestRedisClusterSpace } from './redis-cluster';
export { variablesRead } from './variables-read';
export { rawUnaryCall, type RawUnaryMethod } from './raw-unary-call';
export { startBuiltApp, stopBuiltApp, type BuiltApp } from './built-app';
