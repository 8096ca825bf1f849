/** Prompt tokens an image may cost (SPEC section 8). */
const TOKENS_PER_IMAGE = 1024;

/**
 * A cautious estimate of a request's prompt tokens, used to hold the worst case before the
 * provider counts: about one token per 4 bytes of the messages' JSON, plus the image allowance.
 */
export function estimatePromptTokens(body: Record<string, unknown>, imageCount: number): number {
  const text = JSON.stringify(body.messages ?? []) + JSON.stringify(body.tools ?? []);
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4) + imageCount * TOKENS_PER_IMAGE;
}
