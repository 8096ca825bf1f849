import type { RedisConnection } from '../redis/redis-connection';
import { minuteCountAt } from '../clock-windows';
import { ACQUIRE_PLACE, COUNT_REQUEST, FINISH_REQUEST, GET_USAGE, RELEASE_PLACE } from './limit-scripts';
import {
  ANY_CALLER,
  FINISH_MEMORY_MS,
  FinishedRequest,
  LimitSettings,
  LimitStore,
  MinuteCount,
  PlaceAsk,
  PlaceCaller,
  PlaceGrant,
  ReleasedPlace,
  UsageTotals,
} from './limit-store';
import { EDGE_ASK, placeGrant } from './place-grant';
import { DeclaredScript, Named } from '../redis/lua-script';
import { RedisKeys } from '../redis/redis-keys';
import { runScript } from '../redis/run-script';

/** ACQUIRE_PLACE's outcome codes. */
const PLACE_OUTCOMES = ['no-place', 'granted', 'rate-limited', 'another-callers'] as const;

/** Options of a RedisLimitStore. */
export interface RedisLimitStoreOptions {
  /** The key names (QUOTA_KEY_LAYOUT, REDIS_KEY_PREFIX). */
  keys: RedisKeys;
  /** Tests only: a clock (ms) passed to the scripts instead of Redis TIME. */
  now?: () => number;
}

/**
 * A LimitStore in Redis, shared by every replica: each operation is one Lua script, atomic per
 * account. The client decides the deadline of each command (see openRedisClient) and loads the
 * scripts (loadLimitScripts); any failure becomes StoreUnavailableError.
 */
export class RedisLimitStore implements LimitStore {
  private closing: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly settings: Readonly<LimitSettings>,
    private readonly options: RedisLimitStoreOptions,
  ) {}

  async countRequest(accountId: string, chatTurn = false): Promise<MinuteCount> {
    const keys = this.options.keys.account(accountId);
    const limit = this.settings.requestsPerMinute;
    const [allowed, count, now] = await this.run(COUNT_REQUEST, { minute: keys.minute }, { limit, turn: chatTurn ? 'turn' : '' }, 3);
    return minuteCountAt(allowed === 1, count, limit, now);
  }

  async acquirePlace(accountId: string, requestId: string, ask: PlaceAsk = EDGE_ASK): Promise<PlaceGrant> {
    const keys = this.options.keys.account(accountId);
    const limit = this.settings.concurrentPlaces;
    const perMinute = ask.countsTurn ? this.settings.requestsPerMinute : 0;
    const scriptKeys = { places: keys.places, last_grant: keys.lastGrant, minute: keys.minute };
    const args = { rid: requestId, limit, recovery: this.settings.placeRecoveryMs, caller: ask.caller, per_minute: perMinute };
    const [outcome, count, now] = await this.run(ACQUIRE_PLACE, scriptKeys, args, 3);
    const refused = PLACE_OUTCOMES[outcome];
    const counted = ask.countsTurn && refused !== 'another-callers';
    return placeGrant(refused, limit, counted ? minuteCountAt(refused !== 'rate-limited', count, perMinute, now) : undefined);
  }

  async releasePlace(accountId: string, requestId: string, tokens: number, caller: PlaceCaller = ANY_CALLER): Promise<ReleasedPlace> {
    const keys = this.options.keys.account(accountId);
    const scriptKeys = { places: keys.places, last_grant: keys.lastGrant, today: keys.usageToday, total: keys.usageTotal };
    const args = { rid: requestId, tokens, recovery: this.settings.placeRecoveryMs, caller };
    const [released, refused] = await this.run(RELEASE_PLACE, scriptKeys, args, 2);
    return { released: released === 1, refused: refused === 1 };
  }

  async finishRequest(accountId: string, requestId: string, tokens: number): Promise<FinishedRequest> {
    const keys = this.options.keys.account(accountId);
    const args = { rid: requestId, tokens, recovery: this.settings.placeRecoveryMs, memory: FINISH_MEMORY_MS };
    const scriptKeys = {
      places: keys.places,
      last_grant: keys.lastGrant,
      today: keys.usageToday,
      total: keys.usageTotal,
      finished: keys.finished,
    };
    const [released, repeated] = await this.run(FINISH_REQUEST, scriptKeys, args, 2);
    return { released: released === 1, repeated: repeated === 1 };
  }

  async getUsage(accountId: string): Promise<UsageTotals> {
    const keys = this.options.keys.account(accountId);
    const [todayTokens, totalTokens] = await this.run(GET_USAGE, { today: keys.usageToday, total: keys.usageTotal }, {}, 2);
    return { todayTokens, totalTokens };
  }

  /** QUIT when connected, else (or when QUIT fails) a hard disconnect. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= this.quitOrDrop();
    return this.closing;
  }

  private async quitOrDrop(): Promise<void> {
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        // Not answered in time: drop the connection below.
      }
    }
    if (this.redis.status !== 'end') this.redis.disconnect();
  }

  private run<K extends string, A extends string>(
    script: DeclaredScript<K, A>,
    keys: Named<K, string>,
    args: Named<A, string | number>,
    replyLength: number,
  ): Promise<number[]> {
    return runScript(this.redis, script, keys, args, replyLength, this.options.now);
  }
}
