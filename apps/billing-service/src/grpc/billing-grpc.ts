import { billingV1 } from '@gw/contracts';
import { status } from '@grpc/grpc-js';
import {
  auditActor,
  callStreamHandler,
  eachOnItsOwn,
  Logger,
  MoneyAudit,
  optionalId,
  requireCount,
  requireId,
  RpcError,
  unaryHandler,
  verifiedCallerOf,
} from '@gw/service-kit';
import { BillingLedger } from '../domain/billing-ledger';
import { CreditLines } from '../domain/credit-lines';
import { LedgerArchive } from '../domain/ledger-archive';
import { PriceWatchHub } from '../domain/price-watch-hub';
import { AccountStatement } from '../store/account-statement';
import { MoneyViolation } from '../store/money-audit-store';
import { PgBillingAudit } from '../store/pg-billing-audit';
import { BillRecord, CreditLineExtension } from '../store/credit-line-records';
import { auditTrailGrpc } from './audit-trail-grpc';
import { fromEndReasonWire, toEndReasonWire } from './end-reason-wire';
import { toPrice } from './price-wire';
import { watchPrices } from './watch-prices';

/** What billing.v1.Billing serves from. */
export interface BillingParts {
  ledger: BillingLedger;
  creditLines: CreditLines;
  statement: AccountStatement;
  priceHub: PriceWatchHub;
  archive: LedgerArchive;
  moneyAudit: MoneyAudit<MoneyViolation>;
  audit: PgBillingAudit;
}

const toBill = (b: billingV1.Bill): BillRecord => ({
  requestId: b.requestId,
  accountId: b.accountId,
  model: b.model,
  paid: b.paid,
  promptTokens: b.promptTokens,
  completionTokens: b.completionTokens,
  usageEstimated: b.usageEstimated,
  heldMicro: b.heldMicroLyd,
  inputMicroPerMillion: b.inputMicroLydPerMillion,
  outputMicroPerMillion: b.outputMicroLydPerMillion,
  chargeMicro: b.chargeMicroLyd,
  endReason: fromEndReasonWire(b.endReason),
});

const toLine = (line: CreditLineExtension): billingV1.ExtendCreditLineResponse => ({
  grantedTotalMicroLyd: line.grantedTotalMicro,
  balanceMicroLyd: line.balanceMicro,
  chargedTotalMicroLyd: line.chargedTotalMicro,
  returnedTotalMicroLyd: line.returnedTotalMicro,
  heldMicroLyd: line.heldMicro,
});

const MAX_CHARGES_PAGE = 100;
const MAX_DAYS = 366;

/** The grpc-js implementation of billing.v1.Billing: translation only, the rules are in the domain (BillingLedger, CreditLines, PriceWatchHub). */
export function billingGrpc(
  { ledger, creditLines, statement, priceHub, archive, moneyAudit, audit }: BillingParts,
  logger: Logger,
): billingV1.BillingServer {
  const settle = async (req: billingV1.SettleRequest): Promise<billingV1.SettleResponse> => {
    const result = await ledger.settle(req);
    return { chargedMicroLyd: result.chargedMicro, balanceMicroLyd: result.balanceMicro };
  };
  const authorize = async (req: billingV1.AuthorizeRequest, callerGone: () => boolean): Promise<billingV1.AuthorizeResponse> => {
    const decision = await ledger.authorize(req, callerGone);
    return { approved: decision.approved, balanceMicroLyd: decision.balanceMicro, requiredMicroLyd: decision.requiredMicro };
  };
  return {
    authorize: unaryHandler(logger, 'Authorize', (req: billingV1.AuthorizeRequest, _metadata, callerGone) => authorize(req, callerGone)),
    authorizeCalls: callStreamHandler(logger, 'AuthorizeCalls', {
      rpcService: 'billing.v1.Billing',
      methodOf: () => 'Authorize',
      serve: async (req: billingV1.AuthorizeRequest | undefined, callerGone) => {
        if (!req) throw new RpcError(status.INVALID_ARGUMENT, 'a call without a request');
        return authorize(req, callerGone);
      },
    }),
    settle: unaryHandler(logger, 'Settle', (req: billingV1.SettleRequest) => settle(req)),
    settleMany: unaryHandler(logger, 'SettleMany', async (req: billingV1.SettleManyRequest): Promise<billingV1.SettleManyResponse> => {
      const outcomes = await eachOnItsOwn(req.requests, settle, logger, 'SettleMany');
      return { outcomes: outcomes.map(({ result, errorCode, errorMessage }) => ({ settled: result, errorCode, errorMessage })) };
    }),
    releaseHold: unaryHandler(logger, 'ReleaseHold', async (req: billingV1.ReleaseHoldRequest): Promise<billingV1.ReleaseHoldResponse> => ({
      released: await ledger.releaseHold(req.requestId),
    })),
    renewHolds: unaryHandler(logger, 'RenewHolds', async (req: billingV1.RenewHoldsRequest): Promise<billingV1.RenewHoldsResponse> => ({
      renewed: await ledger.renewHolds(req.requestIds),
    })),
    recordFree: unaryHandler(logger, 'RecordFree', async (req: billingV1.RecordFreeRequest): Promise<billingV1.RecordFreeResponse> => ({
      recorded: await ledger.recordFree(req),
    })),
    extendCreditLine: unaryHandler(
      logger,
      'ExtendCreditLine',
      async (req: billingV1.ExtendCreditLineRequest): Promise<billingV1.ExtendCreditLineResponse> =>
        toLine(await creditLines.extend(req.accountId, req.returnedTotalMicroLyd, req.needMicroLyd)),
    ),
    extendCreditLines: unaryHandler(
      logger,
      'ExtendCreditLines',
      async (req: billingV1.ExtendCreditLinesRequest): Promise<billingV1.ExtendCreditLinesResponse> => {
        const asks = req.lines.map((l) => ({
          accountId: l.accountId,
          returnedTotalMicro: l.returnedTotalMicroLyd,
          needMicro: l.needMicroLyd,
        }));
        const outcomes = await creditLines.extendMany(asks);
        return {
          outcomes: outcomes.map(({ result, errorCode, errorMessage }) => ({ line: result && toLine(result), errorCode, errorMessage })),
        };
      },
    ),
    listCreditLines: unaryHandler(
      logger,
      'ListCreditLines',
      async (req: billingV1.ListCreditLinesRequest): Promise<billingV1.ListCreditLinesResponse> => ({
        lines: (req.accountIds.length > 0
          ? await creditLines.linesOf(req.accountIds)
          : await creditLines.lentLines(req.afterAccountId, req.limit)
        ).map((l) => ({
          accountId: l.accountId,
          grantedTotalMicroLyd: l.grantedTotalMicro,
          chargedTotalMicroLyd: l.chargedTotalMicro,
          returnedTotalMicroLyd: l.returnedTotalMicro,
        })),
      }),
    ),
    applyBills: unaryHandler(logger, 'ApplyBills', async (req: billingV1.ApplyBillsRequest): Promise<billingV1.ApplyBillsResponse> => {
      const returns = req.returns.map((r) => ({ accountId: r.accountId, returnedTotalMicro: r.returnedTotalMicroLyd }));
      const outcomes = await creditLines.applyBills(req.bills.map(toBill), returns);
      return {
        outcomes: outcomes.map((o) => ({
          applied: o.applied,
          repeated: o.repeated,
          shortfallMicroLyd: o.shortfallMicro,
          errorCode: o.errorCode,
          errorMessage: o.errorMessage,
        })),
      };
    }),
    watchPrices: watchPrices(priceHub),
    readLedgerArchive: unaryHandler(
      logger,
      'ReadLedgerArchive',
      (req: billingV1.ReadLedgerArchiveRequest): Promise<billingV1.ReadLedgerArchiveResponse> =>
        archive.page(req.before, req.after, req.limit),
    ),
    auditMoney: unaryHandler(logger, 'AuditMoney', (): Promise<billingV1.AuditMoneyResponse> => moneyAudit.run()),
    dropLedgerMonths: unaryHandler(
      logger,
      'DropLedgerMonths',
      async (req: billingV1.DropLedgerMonthsRequest): Promise<billingV1.DropLedgerMonthsResponse> => {
        const dropped = await archive.drop(req.before, req.rows, req.sha256);
        return { months: dropped.months, rows: dropped.rows, amountMicroLyd: dropped.amountMicro };
      },
    ),
    addBalance: unaryHandler(
      logger,
      'AddBalance',
      async (req: billingV1.AddBalanceRequest, metadata): Promise<billingV1.AddBalanceResponse> => ({
        balanceMicroLyd: await ledger.addBalance(req.accountId, req.amountMicroLyd, {
          reason: req.note?.reason,
          madeBy: verifiedCallerOf(metadata),
          idempotencyKey: req.note?.idempotencyKey || undefined,
        }),
      }),
    ),
    getBalance: unaryHandler(logger, 'GetBalance', async (req: billingV1.GetBalanceRequest): Promise<billingV1.GetBalanceResponse> => ({
      balanceMicroLyd: await ledger.getBalance(req.accountId),
    })),
    listCharges: unaryHandler(logger, 'ListCharges', async (req: billingV1.ListChargesRequest): Promise<billingV1.ListChargesResponse> => {
      requireId('account_id', req.accountId);
      requireCount('limit', req.limit, MAX_CHARGES_PAGE, 1);
      optionalId('before', req.before);
      // One more than asked tells whether an older page exists.
      const rows = await statement.charges(req.accountId, req.limit + 1, req.before || undefined);
      const page = rows.slice(0, req.limit);
      return {
        charges: page.map((c) => ({
          created: c.createdAt.toISOString(),
          model: c.model,
          promptTokens: c.promptTokens,
          completionTokens: c.completionTokens,
          amountMicroLyd: c.amountMicro,
          paid: c.paid,
          usageEstimated: c.usageEstimated,
          endReason: toEndReasonWire(c.endReason),
          corrected: c.corrected,
        })),
        next: rows.length > req.limit ? page[page.length - 1].requestId : '',
      };
    }),
    dailyTotals: unaryHandler(logger, 'DailyTotals', async (req: billingV1.DailyTotalsRequest): Promise<billingV1.DailyTotalsResponse> => {
      requireId('account_id', req.accountId);
      requireCount('days', req.days, MAX_DAYS, 1);
      return {
        days: (await statement.dailyTotals(req.accountId, req.days)).map((d) => ({
          day: d.day,
          tokens: d.tokens,
          amountMicroLyd: d.amountMicro,
        })),
      };
    }),
    listPrices: unaryHandler(logger, 'ListPrices', async (): Promise<billingV1.ListPricesResponse> => ({
      prices: (await statement.prices()).map(toPrice),
    })),
    setPrice: unaryHandler(logger, 'SetPrice', async (req: billingV1.SetPriceRequest, metadata): Promise<billingV1.SetPriceResponse> => {
      const price = req.price ?? { model: '', inputMicroLydPerMillion: 0, outputMicroLydPerMillion: 0 };
      const by = auditActor(metadata, { reason: req.reason });
      const stored = await ledger.setPrice(
        { model: price.model, inputMicroPerMillion: price.inputMicroLydPerMillion, outputMicroPerMillion: price.outputMicroLydPerMillion },
        by,
      );
      return { price: toPrice(stored) };
    }),
    ...auditTrailGrpc(audit, logger),
  };
}
