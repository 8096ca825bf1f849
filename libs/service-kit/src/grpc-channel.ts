import { ChannelCredentials, ChannelOptions, credentials } from '@grpc/grpc-js';

/**
 * Options of every channel and server between our services. Channelz keeps per-call counters
 * and traces for a debugging service we do not run; turned off, each call is cheaper.
 */
export const GRPC_OPTIONS: ChannelOptions = {
  'grpc.enable_channelz': 0,
};

/** A ts-proto generated client class. */
type GeneratedClient<C> = new (address: string, creds: ChannelCredentials, options: ChannelOptions) => C;

/** A client of one of our services at `address` (host:port), on plaintext loopback or cluster network. */
export function grpcClient<C>(client: GeneratedClient<C>, address: string): C {
  return new client(address, credentials.createInsecure(), GRPC_OPTIONS);
}
