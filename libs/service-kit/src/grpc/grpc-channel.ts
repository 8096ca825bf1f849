import { ChannelCredentials, ChannelOptions } from '@grpc/grpc-js';
import { channelCredentials } from './grpc-credentials';
import { GrpcSecurity } from './grpc-security';

/**
 * Options of every channel and server between our services. Channelz keeps per-call counters
 * and traces for a debugging service we do not run; turned off, each call is cheaper.
 */
export const GRPC_OPTIONS: ChannelOptions = {
  'grpc.enable_channelz': 0,
};

/** Time a connection past its maximum age is given to finish its running calls (servers' grpc.max_connection_age_grace_ms). */
export const CONNECTION_AGE_GRACE_MS = 30_000;

/**
 * A client's keepalive ping interval. grpc-js pings from the connection's start, and a ping on a
 * connection the server has sent its GOAWAY on (its maximum age) kills every call still draining
 * on it (grpc/grpc-node#3068: the watches and call streams, which move away within 20 s). So the
 * first ping falls after a healthy connection's whole life, its maximum age (+10% jitter) and
 * grace: only a connection whose server has vanished without closing it lives that long, and
 * the ping finds it. startGrpcServer refuses a maximum age that would let a connection live longer.
 */
export const CLIENT_KEEPALIVE_MS = 120_000;

/**
 * What a client adds: a connection to every address the name resolves to (a headless Service
 * gives one per pod) with calls spread round robin; the name is looked up again whenever a
 * connection ends (servers end them at their maximum connection age), at most once a second, so
 * new replicas get calls; keepalive pings find a peer that vanished (CLIENT_KEEPALIVE_MS).
 */
const CLIENT_OPTIONS: ChannelOptions = {
  ...GRPC_OPTIONS,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.service_config_disable_resolution': 1,
  'grpc.dns_min_time_between_resolutions_ms': 1000,
  'grpc.keepalive_time_ms': CLIENT_KEEPALIVE_MS,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
};

/** The longest maximum connection age a server may set: its connections (age + 10% jitter + grace) end before a client's first keepalive ping. */
export const MAX_CONNECTION_AGE_LIMIT_MS = Math.floor((CLIENT_KEEPALIVE_MS - CONNECTION_AGE_GRACE_MS) / 1.1) - 1000;

/** A ts-proto generated client class. */
type GeneratedClient<C> = new (address: string, creds: ChannelCredentials, options: ChannelOptions) => C;

/**
 * A client of one of our services at `address` (host:port, or dns:///name:port), identified by
 * this process's certificate and accepting only a server whose certificate names `serverIdentity`.
 */
export function grpcClient<C>(client: GeneratedClient<C>, address: string, security: GrpcSecurity, serverIdentity: string): C {
  // The TLS server name is the identity asked for, not the address (an IP is no valid SNI).
  const options = security.kind === 'mtls' ? { ...CLIENT_OPTIONS, 'grpc.ssl_target_name_override': serverIdentity } : CLIENT_OPTIONS;
  return new client(address, channelCredentials(security, serverIdentity), options);
}
