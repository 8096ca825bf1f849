import { FreeTierSettings, FreeTierStore } from '../store/free-tier-store';
import { requireCount, requireId } from './field-checks';
import { checkFreeRequest, countedPromptTokens, FreeRefusal, FreeRequest, FreeTierLimits, freeMaxTokens } from './free-request';

/** The answer to a free request: granted with its max_tokens and reservation, or refused. */
export type FreeDecision = { granted: true; maxTokens: number; reservedTokens: number } | { granted: false; refusal: FreeRefusal };

function validate(request: FreeRequest): void {
  requireId('account_id', request.accountId);
  requireId('request_id', request.requestId);
  requireCount('text_prompt_tokens', request.textPromptTokens);
  requireCount('image_count', request.imageCount);
  requireCount('new_message_tokens', request.newMessageTokens);
  requireCount('json_bytes', request.jsonBytes);
  requireCount('max_tokens', request.maxTokens, 1);
}

/**
 * The rules of the free tier (SPEC sections 7 and 8): whether a request the balance does not
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
    validate(request);
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

  /** An account's free allowance today: the daily size, what is used (reservations included) and what is left. */
  async allowance(accountId: string): Promise<{ dailyTokens: number; usedTokens: number; remainingTokens: number; available: boolean }> {
    requireId('account_id', accountId);
    const [{ settings }, used] = await Promise.all([this.store.snapshot(), this.store.allowanceUsed(accountId)]);
    return { dailyTokens: settings.dailyTokens, usedTokens: used, remainingTokens: Math.max(0, settings.dailyTokens - used), available: settings.enabled && !settings.paused };
  }

  /** Changes the given settings (token counts are whole numbers >= 0) and returns them all. */
  updateSettings(change: Partial<FreeTierSettings>): Promise<FreeTierSettings> {
    if (change.dailyTokens !== undefined) requireCount('daily_tokens', change.dailyTokens);
    if (change.poolTokens !== undefined) requireCount('pool_tokens', change.poolTokens);
    return this.store.updateSettings(change);
  }
}
