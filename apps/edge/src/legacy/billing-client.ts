import { billingV1 } from '@gw/contracts';
import {
  CallStreamClient,
  carriedCalls,
  clientChain,
  GrpcSecurity,
  oneMethodWrapping,
  RpcCalls,
  RpcClient,
  rpcClient,
} from '@gw/service-kit';
import { CALL_STREAMS } from '../clients/call-streams';
import { timeCall } from '../clients/time-call';

/** The edge's calls to billing-service, each with a deadline and timed; Authorize travels on AuthorizeCalls streams. */
export class BillingClient {
  private readonly rpc: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  private readonly authorizations: CallStreamClient<billingV1.AuthorizeRequest | undefined, billingV1.AuthorizeResponse | undefined>;
  private readonly carried: Pick<RpcCalls<billingV1.BillingService>, 'authorize'>;

  constructor(address: string, security: GrpcSecurity, timeoutMs: number) {
    const settings = { timeoutMs, chain: clientChain([timeCall]) };
    this.rpc = rpcClient(billingV1.BillingClient, address, security, 'billing-service', settings);
    this.authorizations = new CallStreamClient<billingV1.AuthorizeRequest | undefined, billingV1.AuthorizeResponse | undefined>(
      () => this.rpc.streams.authorizeCalls(),
      CALL_STREAMS,
    );
    this.carried = carriedCalls(billingV1.BillingService, ['authorize'], this.authorizations, oneMethodWrapping(), settings);
  }

  async authorize(request: billingV1.AuthorizeRequest): Promise<billingV1.AuthorizeResponse> {
    const response = await this.carried.authorize(request);
    if (!response) throw new Error('billing-service answered Authorize without a response');
    return response;
  }

  close(): void {
    this.authorizations.close();
    this.rpc.close();
  }
}
