import { Metadata } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { clientChain, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';

/** How long a statement may take to read: a month of an account's requests. */
const READ_TIMEOUT_MS = 120_000;

/** The console's reads of an account's monthly statements (billing-service), each with a deadline. */
export class StatementClient {
  private readonly billing: RpcClient<billingV1.BillingClient, billingV1.BillingService>;

  constructor(billingAddr: string, security: GrpcSecurity, timeoutMs: number) {
    this.billing = rpcClient(billingV1.BillingClient, billingAddr, security, 'billing-service', { timeoutMs, chain: clientChain() });
  }

  /** The months of the account's statements, newest first. */
  async months(accountId: string): Promise<billingV1.StatementMonth[]> {
    return (await this.billing.listStatements({ accountId })).months;
  }

  /** The public key statements are signed with. */
  key(): Promise<billingV1.GetStatementKeyResponse> {
    return this.billing.getStatementKey({});
  }

  /**
   * Reads the account's signed statement of the month, each part to `take` as it comes; the next
   * part is read once `take` has resolved, and a `take` that throws ends the call.
   */
  async read(accountId: string, month: string, take: (text: string) => Promise<void>): Promise<void> {
    const call = this.billing.streams.readStatement({ accountId, month }, new Metadata(), { deadline: Date.now() + READ_TIMEOUT_MS });
    for await (const part of call as AsyncIterable<billingV1.ReadStatementResponse>) await take(part.text);
  }

  close(): void {
    this.billing.close();
  }
}
