import { ReplyMeta } from './reply-meta';
import { ReplyPlan, Usage } from './reply-plan';

/** The assistant message of a whole reply. */
export interface CompletionMessage {
  role: 'assistant';
  content: string | null;
  reasoning_content?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
}

/** A whole (not streamed) reply: the provider's `chat.completion` object. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: 0; message: CompletionMessage; logprobs: null; finish_reason: ReplyPlan['finishReason'] }[];
  usage: Usage;
}

/** Builds the `chat.completion` object of a planned reply. */
export function completionBody(plan: ReplyPlan, meta: ReplyMeta): ChatCompletion {
  const message: CompletionMessage = { role: 'assistant', content: plan.toolCall ? null : plan.content.join(' ') };
  if (plan.thinking) message.reasoning_content = plan.reasoning.join(' ');
  if (plan.toolCall) {
    message.tool_calls = [{ id: meta.toolCallId, type: 'function', function: { ...plan.toolCall } }];
  }
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finishReason }],
    usage: plan.usage,
  };
}
