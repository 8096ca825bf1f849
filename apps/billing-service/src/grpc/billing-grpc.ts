import { billingV1 } from '@gw/contracts';
import {
  auditActor,
  HolderEventFeed,
  Logger,
  MoneyAudit,
  optionalId,
  requireCount,
  requireId,
  rpcService,
  ServedService,
  serverChain,
  verifiedCallerOf,
  watchHolderEvents,
} from '@gw/service-kit';
import { BillingLedger } from '../domain/billing-ledger';
import { CreditLines } from '../domain/credit-lines';
import { LedgerArchive } from '../domain/ledger-archive';
import { LowBalanceThresholds } from '../domain/low-balance-thresholds';
import { MonthlyStatements } from '../domain/monthly-statements';
import { PriceWatchHub } from '../domain/price-watch-hub';
import { SetAsideBills } from '../domain/set-aside-bills';
import { SpendAlerts } from '../domain/spend-alerts';
import { AccountMoneyReads } from '../store/account-money-reads';
import { MoneyViolation } from '../store/money-audit-store';
import { PgBillingAudit } from '../store/pg-billing-audit';
import { CreditLineAsk, CreditLineExtension, LedgerBill } from '../store/credit-line-records';
import { auditTrailGrpc } from './audit-trail-grpc';
import { spendAlertsGrpc } from './spend-alerts-grpc';
import { fromEndReasonWire, toEndReasonWire } from './end-reason-wire';
import { toPrice } from './price-wire';
import { readStatement } from './read-statement';
import { BillingHandlers, BillingStreamHandlers, ServedBeside } from './served-beside';
import { watchPrices } from './watch-prices';

/** What billing.v1.Billing serves from. */
export interface BillingParts {
  ledger: BillingLedger;
  creditLines: CreditLines;
  moneyReads: AccountMoneyReads;
  statements: MonthlyStatements;
  priceHub: PriceWatchHub;
  archive: LedgerArchive;
  setAside: SetAsideBills;
  moneyAudit: MoneyAudit<MoneyViolation>;
  audit: PgBillingAudit;
  thresholds: LowBalanceThresholds;
  holderEvents: HolderEventFeed;
  spendAlerts: SpendAlerts;
}

const toBill = (b: billingV1.Bill): LedgerBill => ({
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
  ...(b.admittedAtMs !== undefined ? { admittedAtMs: b.admittedAtMs } : {}),
  ...(b.keyId !== undefined ? { keyId: b.keyId } : {}),
});

const toWireBill = (b: LedgerBill): billingV1.Bill => ({
  requestId: b.requestId,
  accountId: b.accountId,
  model: b.model,
  paid: b.paid,
  promptTokens: b.promptTokens,
  completionTokens: b.completionTokens,
  usageEstimated: b.usageEstimated,
  heldMicroLyd: b.heldMicro,
  inputMicroLydPerMillion: b.inputMicroPerMillion,
  outputMicroLydPerMillion: b.outputMicroPerMillion,
  chargeMicroLyd: b.chargeMicro,
  endReason: toEndReasonWire(b.endReason),
  admittedAtMs: b.admittedAtMs,
  keyId: b.keyId,
});

const toAsk = (l: billingV1.ExtendCreditLineRequest): CreditLineAsk => ({
  accountId: l.accountId,
  returnedTotalMicro: l.returnedTotalMicroLyd,
  needMicro: l.needMicroLyd,
  grantedTotalMicro: l.grantedTotalMicroLyd,
  uncoveredMicro: l.uncoveredMicroLyd,
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

/** The unary methods of this release: translation only, the rules are in the domain. */
function currentHandlers(
  { ledger, creditLines, moneyReads, statements, archive, setAside, moneyAudit, audit, thresholds, spendAlerts }: BillingParts,
  logger: Logger,
) {
  return {
    extendCreditLine: async (req) => toLine(await creditLines.extend(toAsk(req))),
    async extendCreditLines(req) {
      const outcomes = await creditLines.extendMany(req.lines.map(toAsk));
      return {
        outcomes: outcomes.map(({ result, errorCode, errorMessage }) => ({ line: result && toLine(result), errorCode, errorMessage })),
      };
    },
    listCreditLines: async (req) => ({
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
    async applyBills(req) {
      const returns = req.returns.map((r) => ({ accountId: r.accountId, returnedTotalMicro: r.returnedTotalMicroLyd }));
      const outcomes = await creditLines.applyBills(req.bills.map(toBill), returns);
      outcomes.forEach((o, i) => {
        if (o.setAside) {
          const { requestId: billingId, accountId, chargeMicroLyd, admittedAtMs } = req.bills[i];
          logger.warn('bill set aside, not filed: waits for ctl bills file or write-off', {
            billingId,
            accountId,
            reason: o.setAsideReason,
            chargeMicroLyd,
            admittedAtMs,
          });
        }
      });
      return {
        outcomes: outcomes.map((o) => ({
          applied: o.applied,
          repeated: o.repeated,
          shortfallMicroLyd: o.shortfallMicro,
          errorCode: o.errorCode,
          errorMessage: o.errorMessage,
          setAside: o.setAside,
        })),
      };
    },
    async listSetAsideBills(req) {
      const page = await setAside.list(req.after, req.limit);
      return {
        bills: page.bills.map((r) => ({
          bill: toWireBill(r.bill),
          reason: r.reason,
          setAsideAt: r.setAsideAt.toISOString(),
          deliveries: r.deliveries,
        })),
        next: page.next,
      };
    },
    async fileSetAsideBill(req, { metadata }) {
      const { month, applied } = await setAside.file(req.requestId, auditActor(metadata, { reason: req.reason }));
      return {
        month,
        chargedMicroLyd: applied.chargedMicro,
        shortfallMicroLyd: applied.shortfallMicro,
        corrected: applied.outcome === 'corrected',
      };
    },
    writeOffSetAsideBill: async (req, { metadata }) => ({
      chargeMicroLyd: await setAside.writeOff(req.requestId, auditActor(metadata, { reason: req.reason })),
    }),
    readLedgerArchive: (req) => archive.page(req.before, req.after, req.limit),
    auditMoney: () => moneyAudit.run(),
    async dropLedgerMonths(req) {
      const dropped = await archive.drop(req.before, req.rows, req.sha256);
      return { months: dropped.months, rows: dropped.rows, amountMicroLyd: dropped.amountMicro };
    },
    addBalance: async (req, { metadata }) => ({
      balanceMicroLyd: await ledger.addBalance(req.accountId, req.amountMicroLyd, {
        reason: req.note?.reason,
        madeBy: verifiedCallerOf(metadata),
        idempotencyKey: req.note?.idempotencyKey || undefined,
      }),
    }),
    getBalance: async (req) => ({ balanceMicroLyd: await ledger.getBalance(req.accountId) }),
    async listCharges(req) {
      requireId('account_id', req.accountId);
      requireCount('limit', req.limit, MAX_CHARGES_PAGE, 1);
      optionalId('before', req.before);
      // One more than asked tells whether an older page exists.
      const rows = await moneyReads.charges(req.accountId, req.limit + 1, req.before || undefined);
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
    },
    async dailyTotals(req) {
      requireId('account_id', req.accountId);
      requireCount('days', req.days, MAX_DAYS, 1);
      return {
        days: (await moneyReads.dailyTotals(req.accountId, req.days)).map((d) => ({
          day: d.day,
          tokens: d.tokens,
          amountMicroLyd: d.amountMicro,
        })),
      };
    },
    listPrices: async () => ({ prices: (await moneyReads.prices()).map(toPrice) }),
    listStatements: async (req) => ({
      months: (await statements.months(req.accountId)).map((m) => ({ month: m.month, provisional: m.status === 'provisional' })),
    }),
    getStatementKey: async () => ({ keyId: statements.keyId, publicKeyPem: statements.publicKeyPem }),
    async setPrice(req, { metadata }) {
      const price = req.price ?? { model: '', inputMicroLydPerMillion: 0, outputMicroLydPerMillion: 0 };
      const by = auditActor(metadata, { reason: req.reason });
      const stored = await ledger.setPrice(
        { model: price.model, inputMicroPerMillion: price.inputMicroLydPerMillion, outputMicroPerMillion: price.outputMicroLydPerMillion },
        by,
      );
      return { price: toPrice(stored) };
    },
    setLowBalanceThreshold: async (req) => ({
      thresholdMicroLyd: await thresholds.set(req.accountId, req.thresholdMicroLyd, req.keepExisting, req.setBy),
    }),
    async getLowBalanceThreshold(req) {
      const reading = await thresholds.get(req.accountId);
      return { thresholdMicroLyd: reading.thresholdMicro, balanceMicroLyd: reading.balanceMicro, low: reading.low };
    },
    ...auditTrailGrpc(audit),
    ...spendAlertsGrpc(spendAlerts),
  } satisfies Partial<BillingHandlers>;
}

/** The handlers of this release's unary methods, by method key. */
export type CurrentBillingHandlers = ReturnType<typeof currentHandlers>;

/**
 * billing.v1.Billing: translation only, the rules are in the domain (BillingLedger, CreditLines,
 * PriceWatchHub, LedgerArchive, SetAsideBills, MonthlyStatements, LowBalanceThresholds); the holder
 * events stream from HolderEventFeed. Every call passes the server chain. The methods
 * served `beside` complete the contract (those kept for the older release); a method served
 * by neither is answered UNIMPLEMENTED.
 */
export function billingGrpc(parts: BillingParts, logger: Logger, beside: ServedBeside[] = []): ServedService {
  // Complete with the methods served beside; grpc-js answers UNIMPLEMENTED for any other.
  const served = Object.assign({}, currentHandlers(parts, logger), ...beside.map((b) => b.handlers)) as BillingHandlers;
  return rpcService(
    billingV1.BillingService,
    served,
    serverChain(logger),
    (methods) =>
      Object.assign(
        {
          watchPrices: watchPrices(parts.priceHub),
          readStatement: readStatement(parts.statements, logger),
          watchHolderEvents: watchHolderEvents(parts.holderEvents),
        },
        ...beside.map((b) => b.streams(methods)),
      ) as BillingStreamHandlers,
  );
}
