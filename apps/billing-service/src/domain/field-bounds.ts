import { MAX_COMPLETION_TOKENS, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { MAX_MICRO_LYD, MAX_PRICE_MICRO_LYD_PER_MILLION } from '@gw/money';
import { requireCount, requireId } from '@gw/service-kit';

/** billing.v1's own field bounds (the proto's header): past one, INVALID_ARGUMENT naming the field. */

export const requireModel = (model: string) => requireId('model', model, MAX_MODEL_ID_LENGTH);
export const requirePromptTokens = (value: number) => requireCount('prompt_tokens', value, MAX_PROMPT_TOKENS);
export const requireCompletionTokens = (field: 'completion_tokens' | 'max_tokens', value: number) =>
  requireCount(field, value, MAX_COMPLETION_TOKENS);
export const requirePrice = (field: string, value: number) => requireCount(field, value, MAX_PRICE_MICRO_LYD_PER_MILLION);
/** An amount that cannot be negative (a hold, a charge, a cumulative total), up to 2^53 - 1 micro-LYD. */
export const requireAmount = (field: string, value: number) => requireCount(field, value, MAX_MICRO_LYD);
