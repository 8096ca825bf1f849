import { status } from '@grpc/grpc-js';
import { auditV1, billingV1, quotaV1 } from '@gw/contracts';
import { GrpcSecurity, grpcClient, unaryCall } from '@gw/service-kit';

/** The console's reads of an account's money (billing-service) and use (quota-service), each with a deadline. */
export class MoneyClients {
  private readonly billing: billingV1.BillingClient;
  private readonly quota: quotaV1.QuotaClient;

  constructor(
    addresses: { billingAddr: string; quotaAddr: string },
    security: GrpcSecurity,
    private readonly timeoutMs: number,
  ) {
    this.billing = grpcClient(billingV1.BillingClient, addresses.billingAddr, security, 'billing-service');
    this.quota = grpcClient(quotaV1.QuotaClient, addresses.quotaAddr, security, 'quota-service');
  }

  async balanceMicro(accountId: string): Promise<number> {
    return (await unaryCall(this.billing.getBalance.bind(this.billing), { accountId }, this.timeoutMs)).balanceMicroLyd;
  }

  charges(accountId: string, limit: number, before: string): Promise<billingV1.ListChargesResponse> {
    return unaryCall(this.billing.listCharges.bind(this.billing), { accountId, limit, before }, this.timeoutMs);
  }

  async dailyTotals(accountId: string, days: number): Promise<billingV1.DayTotal[]> {
    return (await unaryCall(this.billing.dailyTotals.bind(this.billing), { accountId, days }, this.timeoutMs)).days;
  }

  async prices(): Promise<billingV1.Price[]> {
    return (await unaryCall(this.billing.listPrices.bind(this.billing), {}, this.timeoutMs)).prices;
  }

  /** The account's newest entries of billing-service's audit trail (its balance changes), newest first. */
  async auditEntries(accountId: string, limit: number): Promise<auditV1.AuditEntry[]> {
    return (await unaryCall(this.billing.listAuditEntries.bind(this.billing), { accountId, limit }, this.timeoutMs)).entries;
  }

  usage(accountId: string): Promise<quotaV1.GetUsageResponse> {
    return unaryCall(this.quota.getUsage.bind(this.quota), { accountId }, this.timeoutMs);
  }

  freeAllowance(accountId: string): Promise<quotaV1.GetFreeAllowanceResponse> {
    return unaryCall(this.quota.getFreeAllowance.bind(this.quota), { accountId }, this.timeoutMs);
  }

  /**
   * What the account's running paid requests hold now, micro-LYD; undefined from a quota-service
   * older than GetHeld (UNIMPLEMENTED), which a rolling upgrade may still run for a while.
   */
  async heldMicro(accountId: string): Promise<number | undefined> {
    try {
      return (await unaryCall(this.quota.getHeld.bind(this.quota), { accountId }, this.timeoutMs)).heldMicroLyd;
    } catch (err) {
      if ((err as { code?: unknown }).code === status.UNIMPLEMENTED) return undefined;
      throw err;
    }
  }

  close(): void {
    this.billing.close();
    this.quota.close();
  }
}
