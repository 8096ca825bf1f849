import { status } from '@grpc/grpc-js';
import { auditV1, billingV1, quotaV1 } from '@gw/contracts';
import { clientChain, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';

/** The most open spend alerts a page shows. */
const MAX_SPEND_ALERTS = 20;

/** The console's reads of an account's money (billing-service) and use (quota-service), each with a deadline. */
export class MoneyClients {
  private readonly billing: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  private readonly quota: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

  constructor(addresses: { billingAddr: string; quotaAddr: string }, security: GrpcSecurity, timeoutMs: number) {
    const settings = { timeoutMs, chain: clientChain() };
    this.billing = rpcClient(billingV1.BillingClient, addresses.billingAddr, security, 'billing-service', settings);
    this.quota = rpcClient(quotaV1.QuotaClient, addresses.quotaAddr, security, 'quota-service', settings);
  }

  async balanceMicro(accountId: string): Promise<number> {
    return (await this.billing.getBalance({ accountId })).balanceMicroLyd;
  }

  /** The account's low-balance threshold (kept by billing-service, which judges each move of the balance against it), its balance, and whether it is low. */
  async lowBalance(accountId: string): Promise<{ thresholdMicro: number | undefined; balanceMicro: number; low: boolean }> {
    const reading = await this.billing.getLowBalanceThreshold({ accountId });
    return { thresholdMicro: reading.thresholdMicroLyd, balanceMicro: reading.balanceMicroLyd, low: reading.low };
  }

  /**
   * Sets (or removes, undefined) the account's low-balance threshold, kept with who set it; with
   * `keepExisting`, only where none is set. The threshold in force after it.
   */
  async setThreshold(
    accountId: string,
    thresholdMicro: number | undefined,
    setBy: string,
    keepExisting = false,
  ): Promise<number | undefined> {
    return (await this.billing.setLowBalanceThreshold({ accountId, thresholdMicroLyd: thresholdMicro, keepExisting, setBy }))
      .thresholdMicroLyd;
  }

  charges(accountId: string, limit: number, before: string): Promise<billingV1.ListChargesResponse> {
    return this.billing.listCharges({ accountId, limit, before });
  }

  async dailyTotals(accountId: string, days: number): Promise<billingV1.DayTotal[]> {
    return (await this.billing.dailyTotals({ accountId, days })).days;
  }

  async prices(): Promise<billingV1.Price[]> {
    return (await this.billing.listPrices({})).prices;
  }

  /** The account's newest entries of billing-service's audit trail (its balance changes), newest first. */
  async auditEntries(accountId: string, limit: number): Promise<auditV1.AuditEntry[]> {
    return (await this.billing.listAuditEntries({ accountId, limit })).entries;
  }

  /** The account's open spend alerts (a key that may have leaked), newest first. */
  async spendAlerts(accountId: string): Promise<billingV1.SpendAlert[]> {
    return (await this.billing.listSpendAlerts({ accountId, includeClosed: false, limit: MAX_SPEND_ALERTS })).alerts;
  }

  /**
   * Closes the account's open spend alerts: one the holder dismissed (`alertId`), or every one
   * naming a key the holder revoked. NOT_FOUND for an alert that is not the account's.
   */
  async closeSpendAlerts(accountId: string, target: { alertId: number } | { keyId: string }, holderEmail: string): Promise<void> {
    const byKey = 'keyId' in target;
    await this.billing.closeSpendAlerts({
      accountId,
      alertId: byKey ? 0 : target.alertId,
      keyId: byKey ? target.keyId : '',
      closing: byKey ? 'key-revoked' : 'dismissed',
      closedBy: holderEmail,
    });
  }

  usage(accountId: string): Promise<quotaV1.GetUsageResponse> {
    return this.quota.getUsage({ accountId });
  }

  freeAllowance(accountId: string): Promise<quotaV1.GetFreeAllowanceResponse> {
    return this.quota.getFreeAllowance({ accountId });
  }

  /**
   * What the account's running paid requests hold now, micro-LYD; undefined from a quota-service
   * older than GetHeld (UNIMPLEMENTED), which a rolling upgrade may still run for a while.
   */
  async heldMicro(accountId: string): Promise<number | undefined> {
    try {
      return (await this.quota.getHeld({ accountId })).heldMicroLyd;
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
