import { PRODUCTION_DEADLINES, RunningStack } from '@gw/test-stack';
import { CallRecord, ChaosKind, sendChaosCall } from './chaos-caller';

/** An account the load sends requests for. */
export interface LoadAccount {
  accountId: string;
  key: string;
  /** It has a balance: its requests run paid; else they run free. */
  paid: boolean;
}

/**
 * The stack settings of the fault tests: recovery timers short enough for the drain. HOLD_TTL_SECONDS
 * is well above every request but the long streams (about 29 s): a running request's hold is
 * never swept, so those must still be billed. Leases are renewed every 500 ms (a final bill too,
 * until applied) and lapse after 3 s; a lapsed request keeps its hold and place 3 s more.
 */
export const FAULT_STACK_ENV = {
  // How soon a call to a crashed service gives up is part of what is tried.
  ...PRODUCTION_DEADLINES,
  HOLD_TTL_SECONDS: '20',
  HOLD_SWEEP_INTERVAL_MS: '1000',
  FREE_RESERVATION_TTL_SECONDS: '20',
  PLACE_RECOVERY_SECONDS: '20',
  SETTLE_POLL_MS: '100',
  SETTLE_MAX_BACKOFF_MS: '1000',
  SETTLE_CLAIM_IDLE_MS: '2000',
  LEASE_RENEW_MS: '500',
  LEASE_TTL_MS: '3000',
  LAPSE_GRACE_MS: '3000',
};

/** A new account (`balanceLyd` when paid, else 0) and a key of it, made with ctl. */
export async function createLoadAccount(stack: RunningStack, paid: boolean, balanceLyd: string): Promise<LoadAccount> {
  const ctl = async <T>(...args: string[]): Promise<T> => {
    const { json, exitCode } = await stack.ctl(...args);
    if (exitCode !== 0) throw new Error(`ctl ${args.join(' ')}: ${JSON.stringify(json)}`);
    return json as T;
  };
  const { accountId } = await ctl<{ accountId: string }>('account', 'create', '--balance', paid ? balanceLyd : '0');
  const { key } = await ctl<{ key: string }>('key', 'create', '--account', accountId);
  return { accountId, key, paid };
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

/** The pacing of the load: the scenario, not a wait for a state. */
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
      const record = await sendChaosCall({
        baseUrl: options.baseUrls[edge],
        edge,
        key: account.key,
        accountId: account.accountId,
        paid: account.paid,
        kind,
        giveUpMs: options.giveUpMs,
        retry,
      });
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
