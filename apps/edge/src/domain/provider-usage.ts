import { MAX_COMPLETION_TOKENS, MAX_PROMPT_TOKENS } from '@gw/bounds';

/** Tokens the provider reported for a reply. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

/** A count as a whole number from 0 to `max`: rounded up, then held inside the bound. */
function bounded(count: number, max: number): number {
  return Math.min(max, Math.max(0, Math.ceil(count)));
}

/**
 * Reads `usage` from a chat.completion object; undefined when absent or malformed. Each count is
 * made a whole number within its bound (libs/bounds: a prompt within the context window, a reply
 * within 32,768 tokens): quota-service and billing-service refuse a count past its bound for good,
 * and a bill refused is a bill lost, so a figure the provider cannot mean (2^62, 1e400, -5, 10.5)
 * is billed as the nearest one it can.
 */
export function readUsage(reply: unknown): Usage | undefined {
  const usage = (reply as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null)?.usage;
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined;
  return {
    promptTokens: bounded(usage.prompt_tokens, MAX_PROMPT_TOKENS),
    completionTokens: bounded(usage.completion_tokens, MAX_COMPLETION_TOKENS),
  };
}
