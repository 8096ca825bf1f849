import { CheckedChatRequest } from '@gw/chat-validation';
import { capReplyTokens } from './cap-reply-tokens';

const checked = (body: Record<string, unknown>, maxTokens: number): CheckedChatRequest => ({
  body,
  model: 'vendor-v4-flash',
  stream: false,
  maxTokens,
  includeUsage: false,
  imageCount: 0,
});

describe('capReplyTokens (free requests: reply at most 2,048 tokens)', () => {
  it('lowers max_tokens and max_completion_tokens to the cap', () => {
    const capped = capReplyTokens(checked({ max_tokens: 8192, max_completion_tokens: 4000 }, 4000), 2048);
    expect(capped.body).toEqual({ max_tokens: 2048, max_completion_tokens: 2048 });
    expect(capped.maxTokens).toBe(2048);
  });

  it('leaves a request already under the cap as it is', () => {
    const small = checked({ max_tokens: 100 }, 100);
    expect(capReplyTokens(small, 2048)).toBe(small);
  });
});
