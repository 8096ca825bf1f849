import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChannelCredentials, credentials, Metadata, ServiceError } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';

/** How to reach quota-service. */
export interface ChatProductQuotaOptions {
  /** quota-service's gRPC address; `dns:///name:port` spreads calls over every replica. */
  address: string;
  /**
   * A folder with the chat product's certificate of the gateway's CA: ca.crt, tls.key, tls.crt
   * (the Secret chat-product-tls in Kubernetes). quota-service refuses a call without it.
   */
  tlsDir: string;
  /** Time each call may take, from the call to its answer; 2000 ms unless given. */
  deadlineMs?: number;
}

/** One counted turn: the numbers behind the X-RateLimit-* headers of the public API. */
export type CountedTurn = quotaV1.CountRequestResponse;
/** Tokens (prompt plus completion) of the API and the chat product together. */
export type Usage = quotaV1.GetUsageResponse;
/**
 * Whether a turn may run: `started` when it was counted in the account's clock minute and took
 * one of the account's places. Refused: `rate-limited` (over 30 this minute; `count` has
 * Retry-After) or `no-place` (3 turns or API requests already running). `count` feeds the
 * X-RateLimit-* figures either way.
 */
export type TurnStart =
  { started: true; count: CountedTurn } | { started: false; refused: 'rate-limited' | 'no-place'; count: CountedTurn };
/** The tokens a turn used, added to the account's usage when its place is given back. */
export interface TurnTokens {
  promptTokens: number;
  completionTokens: number;
}

const DEFAULT_DEADLINE_MS = 2000;

type Unary<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: { deadline: Date },
  callback: (err: ServiceError | null, res: Res) => void,
) => unknown;

/**
 * The chat product's side of the limits it shares with the public API: for each chat turn, start
 * it (counted and placed in one call), run it, give the place back with the tokens used. Being
 * over a limit is an answer (`started`, `allowed` or `granted` false), never an error; a rejected
 * promise (a grpc-js ServiceError: UNAVAILABLE, DEADLINE_EXCEEDED, ...) means quota-service could
 * not decide, and PERMISSION_DENIED on a place means it is not the chat product's (an API
 * request's): the place stays where it is.
 */
export class ChatProductQuota {
  /** The generated quota.v1 client underneath, for anything the methods below do not cover. */
  readonly client: quotaV1.QuotaClient;
  private readonly deadlineMs: number;

  constructor(options: ChatProductQuotaOptions, channelCredentials: ChannelCredentials = tlsCredentials(options.tlsDir)) {
    this.client = new quotaV1.QuotaClient(options.address, channelCredentials, {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    });
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  /**
   * Counts the turn `turnId` in the account's clock minute and takes one of the account's places
   * for it, in one call. A quota-service of a release before this one counts nothing there (its
   * answer has no count): the turn is then counted with CountRequest, and given its place back
   * at once when that is over the limit.
   */
  async startTurn(accountId: string, turnId: string): Promise<TurnStart> {
    const place = await this.call(this.client.acquirePlace, { accountId, requestId: turnId, lease: undefined });
    const count = place.count ?? (await this.countTurn(accountId));
    if (!count.allowed) {
      if (place.granted) await this.givePlaceBack(accountId, turnId, { promptTokens: 0, completionTokens: 0 });
      return { started: false, refused: 'rate-limited', count };
    }
    return place.granted ? { started: true, count } : { started: false, refused: 'no-place', count };
  }

  /**
   * Counts a turn in the account's clock minute; `allowed` is false past 30 a minute.
   * @deprecated Use startTurn, which counts the turn as it takes its place. A turn counted here and
   * then placed with takePlace in the same minute is still counted once.
   */
  countTurn(accountId: string): Promise<CountedTurn> {
    return this.call(this.client.countRequest, { accountId });
  }

  /**
   * Takes one of the account's places for the turn `turnId`; false when all 3 are taken or the
   * account is over its per-minute limit.
   * @deprecated Use startTurn. This counts the turn too (unless countTurn counted it this minute).
   */
  async takePlace(accountId: string, turnId: string): Promise<boolean> {
    return (await this.call(this.client.acquirePlace, { accountId, requestId: turnId, lease: undefined })).granted;
  }

  /**
   * Gives the place of `turnId` back and adds its tokens to the usage; false when it had already
   * cleared. Only the chat product's own places: another's (an API request's) is refused with
   * PERMISSION_DENIED and stays.
   */
  async givePlaceBack(accountId: string, turnId: string, tokens: TurnTokens): Promise<boolean> {
    return (await this.call(this.client.releasePlace, { accountId, requestId: turnId, ...tokens })).released;
  }

  /** The account's tokens today (since 00:00 UTC) and in all. */
  usage(accountId: string): Promise<Usage> {
    return this.call(this.client.getUsage, { accountId });
  }

  close(): void {
    this.client.close();
  }

  private call<Req, Res>(method: Unary<Req, Res>, request: Req): Promise<Res> {
    const deadline = new Date(Date.now() + this.deadlineMs);
    return new Promise((resolve, reject) => {
      method.call(this.client, request, new Metadata(), { deadline }, (err, res) => (err ? reject(err) : resolve(res)));
    });
  }
}

/** Mutual TLS from a certificate folder: the server must present a certificate of the same CA for the address's name. */
export function tlsCredentials(dir: string): ChannelCredentials {
  const read = (name: string) => readFileSync(join(dir, name));
  return credentials.createSsl(read('ca.crt'), read('tls.key'), read('tls.crt'));
}
