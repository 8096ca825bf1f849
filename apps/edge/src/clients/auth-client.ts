import { authV1 } from '@gw/contracts';
import { grpcClient } from '@gw/service-kit';
import { timedCall } from './timed-call';

/** The edge's calls to auth-service, each with a deadline and timed (timedCall). */
export class AuthClient {
  private readonly client: authV1.AuthClient;

  constructor(address: string, private readonly timeoutMs: number) {
    this.client = grpcClient(authV1.AuthClient, address);
  }

  authenticate(keySha256: string): Promise<authV1.AuthenticateResponse> {
    return timedCall('Authenticate', this.client.authenticate.bind(this.client), { keySha256 }, this.timeoutMs);
  }

  listModels(accountId: string): Promise<authV1.ListModelsResponse> {
    return timedCall('ListModels', this.client.listModels.bind(this.client), { accountId }, this.timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}
