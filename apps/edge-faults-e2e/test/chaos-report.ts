import { AuditAccount, ChaosFindings, EdgeRequestLine } from './chaos-audit';
import { Books } from './chaos-books';
import { CallRecord } from './chaos-caller';
import { FaultRecord } from './chaos-faults';

/** What the chaos test ran into, for the report. */
export interface ChaosRun {
  accounts: AuditAccount[];
  records: CallRecord[];
  lines: Map<string, EdgeRequestLine>;
  faults: FaultRecord[];
  books: Books;
  drained: boolean;
  findings: ChaosFindings;
  /** Every line the stack logged. */
  logs: string[];
}

const tally = (values: string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const value of [...values].sort()) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

const outcomeOf = (r: CallRecord): string => {
  if (r.noAnswer) return `no answer (${r.noAnswer})`;
  const base = `${r.status}${r.code ? ` ${r.code}` : ''}`;
  return r.cutMidReply ? `${base}, cut mid-reply` : base;
};

/** Sums a numeric field over the log lines with this message. */
const logged = (logs: string[], msg: string, field?: string): number =>
  logs
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .reduce((sum, line) => {
      try {
        return sum + (field ? Number((JSON.parse(line) as Record<string, unknown>)[field] ?? 0) : 1);
      } catch {
        return sum;
      }
    }, 0);

/** Error lines the stack logged, counted by service and message. */
const errorLines = (logs: string[]): Record<string, number> =>
  tally(
    logs.flatMap((line) => {
      if (!line.includes('"level":"error"')) return [];
      try {
        const event = JSON.parse(line) as { service?: string; msg?: string };
        return [`${event.service}: ${event.msg}`];
      } catch {
        return [];
      }
    }),
  );

/** The figures of a run as one JSON-able object: requests, faults, ledger rows, money, findings. */
export function chaosFigures(run: ChaosRun): Record<string, unknown> {
  const { records, books } = run;
  const ids = new Set(run.accounts.map((a) => a.accountId));
  const paidAccounts = run.accounts.filter((a) => a.paid);
  const sumBalances = (pick: (a: AuditAccount) => number) => paidAccounts.reduce((sum, a) => sum + pick(a), 0);
  const ledger = books.ledger.filter((row) => ids.has(row.accountId));
  return {
    requests: {
      sent: records.length,
      retries: records.filter((r) => r.retry).length,
      paid: records.filter((r) => r.paid).length,
      free: records.filter((r) => !r.paid).length,
      byKind: tally(records.map((r) => r.kind)),
      byOutcome: tally(records.map(outcomeOf)),
      deliveredText: records.filter((r) => r.delivered).length,
      abortedByCaller: records.filter((r) => r.aborted).length,
      loggedByEdge: records.filter((r) => run.lines.has(r.requestId)).length,
      notLogged: records.filter((r) => !run.lines.has(r.requestId)).length,
      notLoggedButDelivered: records.filter((r) => !run.lines.has(r.requestId) && r.delivered).length,
    },
    faults: run.faults.map((f) => `${f.app}${f.replica === undefined ? '' : ` #${f.replica}`} SIGKILL with ${f.inFlightAtKill} in flight`),
    ledger: {
      rows: ledger.length,
      paid: ledger.filter((row) => row.paid).length,
      free: ledger.filter((row) => !row.paid).length,
      estimated: ledger.filter((row) => row.estimated).length,
      chargedMicroLyd: ledger.reduce((sum, row) => sum + row.amountMicro, 0),
    },
    paidBalancesMicroLyd: {
      before: sumBalances((a) => a.startMicro),
      after: sumBalances((a) => books.balances.get(a.accountId)?.balanceMicro ?? 0),
    },
    perAccount: run.accounts.map((a) => {
      const rows = ledger.filter((row) => row.accountId === a.accountId);
      const end = books.balances.get(a.accountId)?.balanceMicro ?? 0;
      return `${a.accountId} ${a.paid ? 'paid' : 'free'}: ${rows.length} rows, balance ${a.startMicro} -> ${end} micro-LYD`;
    }),
    recovery: {
      drained: run.drained,
      staleHoldsReleased: logged(run.logs, 'stale holds released', 'released'),
      billsDroppedByQuota: logged(run.logs, 'bill refused by billing-service, dropped'),
      errorsLogged: errorLines(run.logs),
    },
    findings: {
      balanceMismatches: run.findings.balanceMismatches.length,
      holdsLeft: run.findings.holdsLeft.length,
      placesHeld: run.findings.placesHeld.length,
      outboxLeft: run.findings.outboxLeft,
      loggedRowMismatches: tally(run.findings.loggedRowMismatches.map((m) => `${m.kind}: ${m.rows} rows, delivered ${m.delivered}`)),
      unloggedRowMismatches: run.findings.unloggedRowMismatches.map(
        (m) => `${m.accountId.slice(0, 8)}: ${m.unmappedRows} rows for ${m.deliveredUnlogged} delivered of ${m.reachedUnlogged} reached`,
      ),
      requestIdsNotEchoed: run.findings.requestIdsNotEchoed.length,
    },
  };
}
