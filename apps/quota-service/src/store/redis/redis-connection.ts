import type { Cluster, Redis } from 'ioredis';

/** What the Redis stores talk to: one Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisConnection = Redis | Cluster;
