import { FreeTierSettings } from '../store/free-tier/free-tier-store';
import { isPeakHour, PeakHours } from './peak-hours';
import { countedPromptTokens as countPrompt } from '@gw/chat-validation';

/** The free tier's fixed rules (configuration), docs/api.md#limits. */
export interface FreeTierLimits {
  /** The one model free requests may use. */
  freeModel: string;
  /** Free replies get at most this many tokens (max_tokens is lowered to it). */
  replyMaxTokens: number;
  /** Prompt tokens (estimate + 10% + 1,024 per image) a free request may have. */
  promptMaxTokens: number;
  /** JSON bytes a free request may have, image data not counted. */
  jsonMaxBytes: number;
  /** Tokens of the new message outside the peak hours... */
  newMessageMaxTokens: number;
  /** ...and during them. */
  newMessagePeakMaxTokens: number;
  peakHours: PeakHours;
  /** A reservation not settled within this time is returned. */
  reservationTtlMs: number;
}

/** A request the balance does not cover, as the edge describes it. */
export interface FreeRequest {
  accountId: string;
  requestId: string;
  model: string;
  thinking: boolean;
  /** Estimated prompt tokens of the text, images not included. */
  textPromptTokens: number;
  imageCount: number;
  newMessageTokens: number;
  jsonBytes: number;
  maxTokens: number;
}

/** Why a free request is refused, in the order the checks run (see quota.proto FreeRefusal). */
export type FreeRefusal =
  'switched-off' | 'paused' | 'model' | 'thinking' | 'request-too-large' | 'allowance-used-up' | 'allowance-too-small' | 'pool-exhausted';

/** The prompt as the free limits count it: the estimate plus 10% (rounded up), plus 1,024 per image. */
export function countedPromptTokens(request: Pick<FreeRequest, 'textPromptTokens' | 'imageCount'>): number {
  return countPrompt(request.textPromptTokens, request.imageCount);
}

/** The max_tokens a free request gets: what it asked for, at most the free reply cap. */
export function freeMaxTokens(request: Pick<FreeRequest, 'maxTokens'>, limits: FreeTierLimits): number {
  return Math.min(request.maxTokens, limits.replyMaxTokens);
}

/**
 * The checks that need no counter, in their fixed order: switched off, paused, model,
 * thinking, size (prompt, JSON, new message: its limit is lower in the peak hours at `nowMs`).
 * Undefined when the request passes them; the allowance and the pool are checked after.
 */
export function checkFreeRequest(
  request: FreeRequest,
  settings: FreeTierSettings,
  limits: FreeTierLimits,
  nowMs: number,
): FreeRefusal | undefined {
  if (!settings.enabled) return 'switched-off';
  if (settings.paused) return 'paused';
  if (request.model !== limits.freeModel) return 'model';
  if (request.thinking) return 'thinking';
  const newMessageMax = isPeakHour(limits.peakHours, nowMs) ? limits.newMessagePeakMaxTokens : limits.newMessageMaxTokens;
  const tooLarge =
    countedPromptTokens(request) > limits.promptMaxTokens ||
    request.jsonBytes > limits.jsonMaxBytes ||
    request.newMessageTokens > newMessageMax;
  return tooLarge ? 'request-too-large' : undefined;
}
