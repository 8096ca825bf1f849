import { CallRecord, ChaosKind, sendChaosCall } from './chaos-caller';

/** An account the load sends requests for. */
export interface LoadAccount {
  accountId: string;
  key: string;
  /** It has a balance: its requests run paid; else they run free. */
  paid: boolean;
}

/** How much load, for how long. */
export interface LoadOptions {
  /** The edge replicas' base addresses; requests take turns. */
  baseUrls: string[];
  accounts: LoadAccount[];
  /** Callers per account, each sending one request after the other. */
  lanesPerAccount: number;
  /** Least time between two request starts of one lane, to stay under 30 a minute per account. */
  laneSpacingMs: number;
  /** No request starts after this long. */
  durationMs: number;
  /** A caller gives up on a request after this long. */
  giveUpMs: number;
}

/** The load as it runs: what has been recorded so far, and what is in flight on which edge. */
export interface RunningLoad {
  records: CallRecord[];
  /** Requests in flight now, per edge replica. */
  inFlight(edge?: number): number;
  /** Resolves when every lane has stopped and every request has ended. */
  done: Promise<void>;
}

const CYCLE: ChaosKind[] = ['stream', 'whole', 'stream-slow', 'whole-slow', 'stream-abort', 'stream', 'whole', 'stream-slow'];

/**
 * The kind of a lane's n-th request. Each paid account's first lane sends one stream that runs
 * longer than the hold TTL, early, so that it is in flight across several faults.
 */
function kindOf(account: LoadAccount, accountIndex: number, lane: number, n: number): ChaosKind {
  if (account.paid && lane === 0 && n === 1) return 'stream-long';
  return CYCLE[(accountIndex * 3 + lane * 5 + n) % CYCLE.length];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs a bounded mixed load: every account's lanes send whole and streamed requests, slow and
 * fast, some left mid-stream, to the edge replicas in turn. A request that got no answer at all
 * (refused or cut before its reply) is sent again once, to the next replica, as its own request:
 * what real clients do, and each attempt is recorded. Stops starting requests after `durationMs`.
 */
export function runLoad(options: LoadOptions): RunningLoad {
  const records: CallRecord[] = [];
  const inFlight = new Map<number, number>();
  const started = Date.now();
  let turn = 0;
  const send = async (account: LoadAccount, kind: ChaosKind, edge: number, retry: boolean): Promise<CallRecord> => {
    inFlight.set(edge, (inFlight.get(edge) ?? 0) + 1);
    try {
      const record = await sendChaosCall({ baseUrl: options.baseUrls[edge], edge, key: account.key, accountId: account.accountId, paid: account.paid, kind, giveUpMs: options.giveUpMs, retry });
      records.push(record);
      return record;
    } finally {
      inFlight.set(edge, (inFlight.get(edge) ?? 0) - 1);
    }
  };
  const lane = async (account: LoadAccount, accountIndex: number, laneIndex: number) => {
    // Lanes start spread out, so their requests do not move in step.
    await sleep(((accountIndex * options.lanesPerAccount + laneIndex) * 211) % options.laneSpacingMs);
    for (let n = 0; Date.now() - started < options.durationMs; n++) {
      const laneStart = Date.now();
      const kind = kindOf(account, accountIndex, laneIndex, n);
      const edge = turn++ % options.baseUrls.length;
      const first = await send(account, kind, edge, false);
      if (first.noAnswer === 'refused' || first.noAnswer === 'cut') await send(account, kind, (edge + 1) % options.baseUrls.length, true);
      const wait = options.laneSpacingMs - (Date.now() - laneStart);
      if (Date.now() + wait - started >= options.durationMs) return;
      await sleep(Math.max(0, wait));
    }
  };
  const lanes = options.accounts.flatMap((account, i) => Array.from({ length: options.lanesPerAccount }, (_, l) => lane(account, i, l)));
  return {
    records,
    inFlight: (edge) => (edge === undefined ? [...inFlight.values()].reduce((a, b) => a + b, 0) : (inFlight.get(edge) ?? 0)),
    done: Promise.all(lanes).then(() => undefined),
  };
}
