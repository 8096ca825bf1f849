import { billingV1 } from '@gw/contracts';
import { CallStreamClient, GrpcSecurity, grpcClient } from '@gw/service-kit';
import { inRpcClientSpan } from '@gw/telemetry';
import { CALL_STREAMS } from './call-streams';
import { timed } from './timed-call';

/** The edge's calls to billing-service, each with a deadline and timed; Authorize travels on AuthorizeCalls streams. */
export class BillingClient {
  private readonly client: billingV1.BillingClient;
  private readonly authorizations: CallStreamClient<billingV1.AuthorizeRequest | undefined, billingV1.AuthorizeResponse | undefined>;

  constructor(
    address: string,
    security: GrpcSecurity,
    private readonly timeoutMs: number,
  ) {
    this.client = grpcClient(billingV1.BillingClient, address, security, 'billing-service');
    this.authorizations = new CallStreamClient<billingV1.AuthorizeRequest | undefined, billingV1.AuthorizeResponse | undefined>(
      () => this.client.authorizeCalls(),
      CALL_STREAMS,
    );
  }

  async authorize(request: billingV1.AuthorizeRequest): Promise<billingV1.AuthorizeResponse> {
    const response = await inRpcClientSpan('billing.v1.Billing', 'Authorize', (carrier) =>
      timed('Authorize', this.authorizations.call(request, this.timeoutMs, carrier)),
    );
    if (!response) throw new Error('billing-service answered Authorize without a response');
    return response;
  }

  close(): void {
    this.authorizations.close();
    this.client.close();
  }
}
