import { ClientDuplexStream } from '@grpc/grpc-js';
import { authV1 } from '@gw/contracts';
import { clientChain, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { timeCall } from './time-call';

/** The edge's calls to auth-service, each with a deadline and timed (its chain). */
export class AuthClient {
  private readonly rpc: RpcClient<authV1.AuthClient, authV1.AuthService>;

  constructor(address: string, security: GrpcSecurity, timeoutMs: number) {
    this.rpc = rpcClient(authV1.AuthClient, address, security, 'auth-service', { timeoutMs, chain: clientChain([timeCall]) });
  }

  authenticate(keySha256: string): Promise<authV1.AuthenticateResponse> {
    return this.rpc.authenticate({ keySha256 });
  }

  listModels(accountId: string): Promise<authV1.ListModelsResponse> {
    return this.rpc.listModels({ accountId });
  }

  /** The uses of keys served from the key cache, for their "last used" times. */
  recordKeyUses(uses: authV1.KeyUse[]): Promise<authV1.RecordKeyUsesResponse> {
    return this.rpc.recordKeyUses({ uses });
  }

  /** The change stream of the key cache (see IdentityWatch); it has no deadline. */
  watchIdentityChanges(): ClientDuplexStream<authV1.WatchIdentityChangesRequest, authV1.WatchIdentityChangesResponse> {
    return this.rpc.streams.watchIdentityChanges();
  }

  close(): void {
    this.rpc.close();
  }
}
