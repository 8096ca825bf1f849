import { TOKENS_PER_IMAGE } from '@gw/bounds';

/** Prompt tokens an image may cost (docs/api.md#limits). */
export { TOKENS_PER_IMAGE };

/**
 * A prompt as the gateway counts it before the provider does (docs/api.md#limits, free prompt):
 * the tokenizer's estimate plus 10%, rounded up, plus 1,024 per image. Integer arithmetic, so
 * the edge's hold and quota-service's free limits always agree.
 */
export function countedPromptTokens(textPromptTokens: number, imageCount: number): number {
  return Math.ceil((textPromptTokens * 11) / 10) + imageCount * TOKENS_PER_IMAGE;
}
