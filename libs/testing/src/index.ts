/** Per-test-file PostgreSQL databases and Redis key spaces on shared (or container) servers. */
export { createTestDatabase, type TestDatabase } from './test-database';
export { createTestRedis, type TestRedis } from './test-redis';
export { startStack, type RunningStack, type StackOptions } from './start-stack';
export { freePort } from './free-port';
