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

/**
 * What a client adds: a connection to every address the name resolves to (a headless Service
 * gives one per pod) with calls spread round robin; the name is looked up again whenever a
 * connection ends (servers end them at their maximum connection age), at most once a second, so
 * new replicas get calls; keepalive pings find a dead peer between calls.
 */
const CLIENT_OPTIONS: ChannelOptions = {
  ...GRPC_OPTIONS,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.service_config_disable_resolution': 1,
  'grpc.dns_min_time_between_resolutions_ms': 1000,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
};

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
