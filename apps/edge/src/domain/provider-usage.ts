/** Tokens the provider reported for a reply. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

/** Reads `usage` from a chat.completion object; undefined when absent or malformed. */
export function readUsage(reply: unknown): Usage | undefined {
  const usage = (reply as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null)?.usage;
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
}
