import { Books } from './chaos-books';
import { CallRecord } from './chaos-caller';

/** What the edge's one log line per request says about it (apps/edge/src/http/logging/request-log.ts). */
export interface EdgeRequestLine {
  /** The caller's x-request-id. */
  requestId: string;
  /** The id the request was held, placed and billed under (the ledger's request_id). */
  billingId?: string;
  status: number;
  /** Prompt plus completion tokens the edge handed over for billing. */
  billedTokens: number;
}

/** An account of the test, with its balance before the load. */
export interface AuditAccount {
  accountId: string;
  paid: boolean;
  startMicro: number;
}

/** One request whose ledger rows are not what its story says. */
export interface RowMismatch {
  requestId: string;
  accountId: string;
  kind: string;
  status?: number;
  delivered: boolean;
  billedTokens: number;
  rows: number;
}

/** Everything found wrong; every list is empty when nothing was lost or leaked. */
export interface ChaosFindings {
  /** start − end ≠ the sum of the account's paid ledger amounts. */
  balanceMismatches: { accountId: string; startMicro: number; endMicro: number; ledgerMicro: number }[];
  /** Holds left in billing.holds, or an amount still held on the balance row. */
  holdsLeft: { accountId: string; holds: number; heldMicro: number }[];
  /** Concurrency places still held in Redis. */
  placesHeld: { accountId: string; places: number }[];
  /** Bills never delivered from the settle outbox. */
  outboxLeft: number;
  /** Requests the edge logged whose ledger rows are not exactly one when billed (text delivered or tokens handed over), else none. */
  loggedRowMismatches: RowMismatch[];
  /**
   * Per account, requests the edge never logged (it was killed under them): those that delivered
   * text must each have a row; there cannot be more rows than such requests that reached an edge.
   */
  unloggedRowMismatches: { accountId: string; deliveredUnlogged: number; unmappedRows: number; reachedUnlogged: number }[];
  /** Replies whose x-request-id is not the one the caller sent. */
  requestIdsNotEchoed: string[];
}

/** The findings of a run where nothing was lost or leaked. */
export const NOTHING_WRONG: ChaosFindings = Object.freeze({
  balanceMismatches: [],
  holdsLeft: [],
  placesHeld: [],
  outboxLeft: 0,
  loggedRowMismatches: [],
  unloggedRowMismatches: [],
  requestIdsNotEchoed: [],
});

/**
 * Holds the books after the load against what the callers saw and what the edge logged. A
 * request the edge logged is matched to its ledger row by its billing id, exactly. A request
 * on an edge that was killed has no log line, so those are matched per account by count: every
 * one that delivered text needs a row (docs/api.md#billing-rules: what reached the caller is
 * billed), and one whose caller saw nothing may have a row only if the provider had produced
 * text, which the test cannot see, so the bound is the number that reached an edge.
 */
export function auditChaos(
  accounts: AuditAccount[],
  records: CallRecord[],
  lines: Map<string, EdgeRequestLine>,
  books: Books,
): ChaosFindings {
  const findings: ChaosFindings = {
    balanceMismatches: [],
    holdsLeft: [],
    placesHeld: [],
    outboxLeft: books.outbox,
    loggedRowMismatches: [],
    unloggedRowMismatches: [],
    requestIdsNotEchoed: records.filter((r) => r.seenRequestId !== undefined && r.seenRequestId !== r.requestId).map((r) => r.requestId),
  };
  const loggedBillingIds = new Set([...lines.values()].flatMap((line) => (line.billingId ? [line.billingId] : [])));
  for (const account of accounts) {
    const rows = books.ledger.filter((row) => row.accountId === account.accountId);
    const balance = books.balances.get(account.accountId) ?? { balanceMicro: 0, heldMicro: 0 };
    const ledgerMicro = rows.filter((row) => row.paid).reduce((sum, row) => sum + row.amountMicro, 0);
    if (account.startMicro - balance.balanceMicro !== ledgerMicro) {
      findings.balanceMismatches.push({
        accountId: account.accountId,
        startMicro: account.startMicro,
        endMicro: balance.balanceMicro,
        ledgerMicro,
      });
    }
    const holds = books.holds.get(account.accountId) ?? 0;
    if (holds > 0 || balance.heldMicro > 0) findings.holdsLeft.push({ accountId: account.accountId, holds, heldMicro: balance.heldMicro });
    const places = books.places.get(account.accountId) ?? 0;
    if (places > 0) findings.placesHeld.push({ accountId: account.accountId, places });

    const mine = records.filter((r) => r.accountId === account.accountId);
    for (const record of mine) {
      const line = lines.get(record.requestId);
      if (!line) continue;
      const matched = line.billingId ? rows.filter((row) => row.billingId === line.billingId).length : 0;
      const expected = record.delivered || line.billedTokens > 0 ? 1 : 0;
      if (matched !== expected) {
        findings.loggedRowMismatches.push({
          requestId: record.requestId,
          accountId: account.accountId,
          kind: record.kind,
          status: record.status,
          delivered: record.delivered,
          billedTokens: line.billedTokens,
          rows: matched,
        });
      }
    }
    const unlogged = mine.filter((r) => !lines.has(r.requestId));
    const deliveredUnlogged = unlogged.filter((r) => r.delivered).length;
    const reachedUnlogged = unlogged.filter((r) => r.noAnswer !== 'refused').length;
    const unmappedRows = rows.filter((row) => !loggedBillingIds.has(row.billingId)).length;
    if (unmappedRows < deliveredUnlogged || unmappedRows > reachedUnlogged) {
      findings.unloggedRowMismatches.push({ accountId: account.accountId, deliveredUnlogged, unmappedRows, reachedUnlogged });
    }
  }
  return findings;
}

/** The edge's per-request log lines among the stack's captured logs, by the caller's request id. */
export function edgeRequestLines(logs: string[]): Map<string, EdgeRequestLine> {
  const lines = new Map<string, EdgeRequestLine>();
  for (const text of logs) {
    if (!text.includes('"msg":"request"')) continue;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // The capture splits lines at pipe chunk boundaries; such a request counts as unlogged.
      continue;
    }
    if (event.service !== 'edge' || event.msg !== 'request' || typeof event.requestId !== 'string') continue;
    lines.set(event.requestId, {
      requestId: event.requestId,
      billingId: typeof event.billingId === 'string' ? event.billingId : undefined,
      status: Number(event.status),
      billedTokens: Number(event.promptTokens ?? 0) + Number(event.completionTokens ?? 0),
    });
  }
  return lines;
}
