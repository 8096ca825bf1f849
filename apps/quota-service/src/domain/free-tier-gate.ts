import { FreeTierSettings, FreeTierStore } from '../store/free-tier/free-tier-store';
import {
  MAX_BODY_BYTES,
  MAX_COMPLETION_TOKENS,
  MAX_FREE_TIER_TOKENS,
  MAX_IMAGES,
  MAX_MODEL_ID_LENGTH,
  MAX_PROMPT_TOKENS,
} from '@gw/bounds';
import { AuditActor, optionalId, requireCount, requireId } from '@gw/service-kit';
import { checkFreeRequest, countedPromptTokens, FreeRefusal, FreeRequest, FreeTierLimits, freeMaxTokens } from './free-request';
import { DomainError } from '@gw/errors';

/** The answer to a free request: granted with its max_tokens and reservation, or refused. */
export type FreeDecision = { granted: true; maxTokens: number; reservedTokens: number } | { granted: false; refusal: FreeRefusal };

/** A free request's fields within their bounds (INVALID_ARGUMENT otherwise, nothing changed). */
export function requireFreeRequest(request: FreeRequest): void {
  requireId('account_id', request.accountId);
  requireId('request_id', request.requestId);
  optionalId('model', request.model, MAX_MODEL_ID_LENGTH);
  requireCount('text_prompt_tokens', request.textPromptTokens, MAX_PROMPT_TOKENS);
  requireCount('image_count', request.imageCount, MAX_IMAGES);
  requireCount('new_message_tokens', request.newMessageTokens, MAX_PROMPT_TOKENS);
  requireCount('json_bytes', request.jsonBytes, MAX_BODY_BYTES);
  requireCount('max_tokens', request.maxTokens, MAX_COMPLETION_TOKENS, 1);
}

/**
 * The rules of the free tier (docs/api.md: the 402 codes, the free limits): whether a request the balance does not
 * cover runs free, and the operator's settings. The checks run in the order of FreeRefusal;
 * a granted request reserves its counted prompt plus its (capped) max_tokens against the
 * account's allowance and the pool, settled later by RequestFinisher.
 */
export class FreeTierGate {
  constructor(
    private readonly store: FreeTierStore,
    private readonly limits: Readonly<FreeTierLimits>,
  ) {}

  /** Decides, and when granted reserves, a free request. */
  async reserve(request: FreeRequest): Promise<FreeDecision> {
    requireFreeRequest(request);
    const { settings, nowMs } = await this.store.snapshot();
    const refusal = checkFreeRequest(request, settings, this.limits, nowMs);
    if (refusal) return { granted: false, refusal };
    const maxTokens = freeMaxTokens(request, this.limits);
    const tokens = countedPromptTokens(request) + maxTokens;
    const outcome = await this.store.reserve({
      accountId: request.accountId,
      requestId: request.requestId,
      tokens,
      dailyTokens: settings.dailyTokens,
      poolTokens: settings.poolTokens,
      ttlMs: this.limits.reservationTtlMs,
    });
    return outcome === 'reserved' ? { granted: true, maxTokens, reservedTokens: tokens } : { granted: false, refusal: outcome };
  }

  /** The max_tokens a request granted free is sent with. */
  maxTokensOf(request: Pick<FreeRequest, 'maxTokens'>): number {
    return freeMaxTokens(request, this.limits);
  }

  /** Gives a reservation back whole (a request granted free that got no place after all). */
  async giveBack(accountId: string, requestId: string): Promise<void> {
    await this.store.settle(accountId, requestId, 0);
  }

  /** An account's free allowance today: the daily size, what is used (reservations included) and what is left. */
  async allowance(accountId: string): Promise<{ dailyTokens: number; usedTokens: number; remainingTokens: number; available: boolean }> {
    requireId('account_id', accountId);
    const [{ settings }, used] = await Promise.all([this.store.snapshot(), this.store.allowanceUsed(accountId)]);
    return {
      dailyTokens: settings.dailyTokens,
      usedTokens: used,
      remainingTokens: Math.max(0, settings.dailyTokens - used),
      available: settings.enabled && !settings.paused,
    };
  }

  /** Changes the given settings (token counts are whole numbers from 0 to MAX_FREE_TIER_TOKENS) and returns them all. */
  updateSettings(change: Partial<FreeTierSettings>): Promise<FreeTierSettings> {
    return this.store.updateSettings(checkedChange(change));
  }

  /**
   * The operator's change (updateSettings), recorded in `trail` before it is made, made `by`: a
   * change the trail does not take is not made (UNAVAILABLE), so no change goes unrecorded. One
   * that fails after it was recorded is told to the operator, whose next try is recorded again.
   * With nothing to change, only reads.
   */
  async changeSettings(change: Partial<FreeTierSettings>, trail: FreeTierTrail, by: AuditActor): Promise<FreeTierSettings> {
    const changed = Object.keys(checkedChange(change)) as (keyof FreeTierSettings)[];
    const current = await this.updateSettings({});
    if (changed.length === 0) return current;
    await trail.recordFreeTierChange({ ...current, ...change }, changed, by).catch(() => {
      throw new DomainError(
        'unavailable',
        'billing-service did not record the change in the audit trail (unreachable, or it refused), so it was not made',
      );
    });
    return this.updateSettings(change);
  }
}

/** A change of the settings whose token counts are whole numbers from 0 to MAX_FREE_TIER_TOKENS (INVALID_ARGUMENT otherwise). */
function checkedChange(change: Partial<FreeTierSettings>): Partial<FreeTierSettings> {
  if (change.dailyTokens !== undefined) requireCount('daily_tokens', change.dailyTokens, MAX_FREE_TIER_TOKENS);
  if (change.poolTokens !== undefined) requireCount('pool_tokens', change.poolTokens, MAX_FREE_TIER_TOKENS);
  return change;
}

/** Where a change of the settings is recorded: billing-service's audit trail, as Redis keeps none. */
export interface FreeTierTrail {
  /** Records the settings a change will leave, which of them it sets, and who asked why. */
  recordFreeTierChange(settings: FreeTierSettings, changed: (keyof FreeTierSettings)[], by: AuditActor): Promise<void>;
}
