import { MAX_COMPLETION_TOKENS, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { requireCount, requireId } from '@gw/service-kit';

/**
 * The tokens of one request, prompt_tokens at most the context window and completion_tokens at
 * most the largest max_tokens (SPEC 8); their sum. INVALID_ARGUMENT past either: no request of
 * the API or the chat product uses more, and usage counters take only what a request can use.
 */
export function requireUsage(promptTokens: number, completionTokens: number): number {
  return requireCount('prompt_tokens', promptTokens, MAX_PROMPT_TOKENS) + requireCount('completion_tokens', completionTokens, MAX_COMPLETION_TOKENS);
}

/** A required model id of at most MAX_MODEL_ID_LENGTH characters. */
export function requireModel(model: string): string {
  return requireId('model', model, MAX_MODEL_ID_LENGTH);
}
