/**
 * Whether a request asks for thinking (docs/api.md#every-error-code, FREE_TIER_THINKING): `thinking` set and not
 * disabled, or `reasoning_effort` other than none. A request with neither asks for none, as the
 * provider reads it.
 */
export function asksThinking(body: Record<string, unknown>): boolean {
  const thinking = body.thinking as { type?: unknown } | undefined;
  const thinkingOn = typeof thinking === 'object' && thinking !== null && thinking.type !== 'disabled';
  const effort = body.reasoning_effort;
  return thinkingOn || (effort !== undefined && effort !== null && effort !== 'none');
}
