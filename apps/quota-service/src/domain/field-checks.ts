import { MAX_COMPLETION_TOKENS, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { MAX_MICRO_LYD, MAX_PRICE_MICRO_LYD_PER_MILLION } from '@gw/money';
import { requireCount, requireId } from '@gw/service-kit';
import { HoldTerms } from '../store/outbox/bill-outbox';
import { DomainError } from '@gw/errors';

/**
 * The tokens of one request, prompt_tokens at most the context window and completion_tokens at
 * most the largest max_tokens (docs/api.md#limits); their sum. INVALID_ARGUMENT past either: no request of
 * the API or the chat product uses more, and usage counters take only what a request can use.
 */
export function requireUsage(promptTokens: number, completionTokens: number): number {
  return (
    requireCount('prompt_tokens', promptTokens, MAX_PROMPT_TOKENS) +
    requireCount('completion_tokens', completionTokens, MAX_COMPLETION_TOKENS)
  );
}

/** A required model id of at most MAX_MODEL_ID_LENGTH characters. */
export function requireModel(model: string): string {
  return requireId('model', model, MAX_MODEL_ID_LENGTH);
}

/**
 * The hold an admitted paid request runs under (quota.v1 Hold, as Admit answered it): required,
 * an amount of at most MAX_MICRO_LYD and prices of at most MAX_PRICE_MICRO_LYD_PER_MILLION.
 */
export function requireHold(hold: HoldTerms | undefined): HoldTerms {
  if (!hold) throw new DomainError('invalid-argument', 'hold is required for a paid request admitted by Admit');
  requireCount('hold.amount_micro_lyd', hold.amountMicro, MAX_MICRO_LYD);
  requireCount('hold.input_micro_lyd_per_million', hold.inputMicroPerMillion, MAX_PRICE_MICRO_LYD_PER_MILLION);
  requireCount('hold.output_micro_lyd_per_million', hold.outputMicroPerMillion, MAX_PRICE_MICRO_LYD_PER_MILLION);
  return hold;
}

/** A key id as auth-service makes them: plain characters only, so that the FINISH script can read it from the admission record. */
const KEY_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** The key an Admit names (auth-service's key id), or undefined for none (''); INVALID_ARGUMENT for any other characters or past 200. */
export function requireKeyId(keyId: string): string | undefined {
  if (keyId === '') return undefined;
  if (!KEY_ID.test(keyId)) throw new DomainError('invalid-argument', 'key_id must be at most 200 of A-Z a-z 0-9 _ . : -');
  return keyId;
}
