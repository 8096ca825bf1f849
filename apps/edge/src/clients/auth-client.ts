import { ClientDuplexStream } from '@grpc/grpc-js';
import { authV1 } from '@gw/contracts';
import { GrpcSecurity, grpcClient } from '@gw/service-kit';
import { timedCall } from './timed-call';

/** The edge's calls to auth-service, each with a deadline and timed (timedCall). */
export class AuthClient {
  private readonly client: authV1.AuthClient;

  constructor(
    address: string,
    security: GrpcSecurity,
    private readonly timeoutMs: number,
  ) {
    this.client = grpcClient(authV1.AuthClient, address, security, 'auth-service');
  }

  authenticate(keySha256: string): Promise<authV1.AuthenticateResponse> {
    return timedCall('Authenticate', this.client.authenticate.bind(this.client), { keySha256 }, this.timeoutMs);
  }

  listModels(accountId: string): Promise<authV1.ListModelsResponse> {
    return timedCall('ListModels', this.client.listModels.bind(this.client), { accountId }, this.timeoutMs);
  }

  /** The uses of keys served from the key cache, for their "last used" times. */
  recordKeyUses(uses: authV1.KeyUse[]): Promise<authV1.RecordKeyUsesResponse> {
    return timedCall('RecordKeyUses', this.client.recordKeyUses.bind(this.client), { uses }, this.timeoutMs);
  }

  /** The change stream of the key cache (see IdentityWatch); it has no deadline. */
  watchIdentityChanges(): ClientDuplexStream<authV1.WatchIdentityChangesRequest, authV1.WatchIdentityChangesResponse> {
    return this.client.watchIdentityChanges();
  }

  close(): void {
    this.client.close();
  }
}
