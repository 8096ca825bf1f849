import { CheckedChatRequest } from '@gw/chat-validation';

/** The request with every reply limit it forwards lowered to `maxTokens` (a free request's cap). */
export function capReplyTokens(checked: CheckedChatRequest, maxTokens: number): CheckedChatRequest {
  if (maxTokens >= checked.maxTokens) return checked;
  const body = { ...checked.body };
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    if (typeof body[field] === 'number' && (body[field] as number) > maxTokens) body[field] = maxTokens;
  }
  return { ...checked, body, maxTokens };
}
