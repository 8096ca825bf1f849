import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { AuditActor, callBatch, clientChain, GrpcSecurity, ItemResult, RpcClient, rpcClient } from '@gw/service-kit';
import { BatchLender, LineAsk, LineExtension } from '../domain/credit-lender';
import { FreeTierTrail } from '../domain/free-tier-gate';
import { LentLine } from '../domain/line-returner';
import { BILL_SET_ASIDE, BillingSink } from '../domain/bill-forwarder';
import { FreeTierSettings } from '../store/free-tier/free-tier-store';
import { OutboxBill, OutboxLineReturn } from '../store/outbox/bill-outbox';
import { toBill } from './bill-message';

/** A line as billing.v1 answers it. */
const toLineExtension = (line: billingV1.ExtendCreditLineResponse): LineExtension => ({
  grantedTotalMicro: line.grantedTotalMicroLyd,
  balanceMicro: line.balanceMicroLyd,
  chargedTotalMicro: line.chargedTotalMicroLyd,
  returnedTotalMicro: line.returnedTotalMicroLyd,
  heldOutsideMicro: line.heldMicroLyd,
});

/** A bill's own refusal, with its gRPC code (isFinalFailure reads it). */
function billError(outcome: billingV1.BillOutcome | undefined): Error & { code: number } {
  const err = new Error(outcome?.errorMessage || 'no outcome for this bill') as Error & { code: number };
  err.code = outcome ? outcome.errorCode : status.INTERNAL;
  return err;
}

/**
 * quota-service's only outbound calls, to billing-service, each with a deadline: delivering
 * bills and line returns, extending credit lines (several in one call), and the price watch's
 * stream. The older release's calls are legacy/older-billing-calls.ts's, on `rpc`.
 */
export class BillingClient implements BillingSink, BatchLender, FreeTierTrail {
  /** The generated client, each call behind the client chain: for the calls not wrapped here. */
  readonly rpc: RpcClient<billingV1.BillingClient, billingV1.BillingService>;

  constructor(address: string, security: GrpcSecurity, timeoutMs: number) {
    this.rpc = rpcClient(billingV1.BillingClient, address, security, 'billing-service', { timeoutMs, chain: clientChain() });
  }

  async recordFreeTierChange(settings: FreeTierSettings, changed: (keyof FreeTierSettings)[], by: AuditActor): Promise<void> {
    const names = changed.map((name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
    await this.rpc.recordFreeTierChange({ ...settings, changed: names, actor: by.actor, reason: by.reason });
  }

  async applyBills(bills: OutboxBill[], returns: OutboxLineReturn[]): Promise<unknown[]> {
    const request = {
      bills: bills.map(toBill),
      returns: returns.map((r) => ({ accountId: r.accountId, returnedTotalMicroLyd: r.returnedTotalMicro })),
    };
    const { outcomes } = await this.rpc.applyBills(request);
    return bills.map((_, i) => {
      const outcome = outcomes[i];
      if (outcome?.errorCode !== 0) return billError(outcome);
      return outcome.setAside ? BILL_SET_ASIDE : undefined;
    });
  }

  /** ExtendCreditLines; a billing-service without it (UNIMPLEMENTED: an older release) gets one ExtendCreditLine per line. */
  async extendMany(asks: LineAsk[]): Promise<ItemResult<LineExtension>[]> {
    const lines = asks.map((a) => ({
      accountId: a.accountId,
      returnedTotalMicroLyd: a.returnedTotalMicro,
      needMicroLyd: a.needMicro,
      grantedTotalMicroLyd: a.grantedTotalMicro,
      uncoveredMicroLyd: a.uncoveredMicro,
    }));
    return callBatch(
      lines,
      async (many) =>
        (await this.rpc.extendCreditLines({ lines: many })).outcomes.map((o) => ({
          ...o,
          result: o.line && toLineExtension(o.line),
        })),
      async (one) => toLineExtension(await this.rpc.extendCreditLine(one)),
    );
  }

  /** ListCreditLines: a page of the lines lent now, by account id. */
  lentLines(afterAccountId: string, limit: number): Promise<LentLine[]> {
    return this.listLines({ afterAccountId, limit, accountIds: [] });
  }

  /** ListCreditLines of these accounts, whatever their line. */
  linesOf(accountIds: readonly string[]): Promise<LentLine[]> {
    return this.listLines({ afterAccountId: '', limit: 0, accountIds: [...accountIds] });
  }

  private async listLines(request: billingV1.ListCreditLinesRequest): Promise<LentLine[]> {
    const { lines } = await this.rpc.listCreditLines(request);
    return lines.map((l) => ({
      accountId: l.accountId,
      granted: l.grantedTotalMicroLyd,
      charged: l.chargedTotalMicroLyd,
      returned: l.returnedTotalMicroLyd,
    }));
  }

  /** Opens billing.v1 WatchPrices (no deadline: it lives until cut; the channel's keepalive finds a vanished peer). */
  watchPrices(): ReturnType<billingV1.BillingClient['watchPrices']> {
    return this.rpc.streams.watchPrices();
  }

  close(): void {
    this.rpc.close();
  }
}
