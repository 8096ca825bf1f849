import { ReplyMeta } from './reply-meta';
import { ReplyPlan, Usage } from './reply-plan';

/** The changes one streamed chunk adds to the assistant message. */
export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  tool_calls?: { index: 0; id?: string; type?: 'function'; function: { name?: string; arguments: string } }[];
}

/** One `chat.completion.chunk`; the usage chunk has no choices. */
export interface CompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: 0; delta: ChunkDelta; logprobs: null; finish_reason: ReplyPlan['finishReason'] | null }[];
  usage?: Usage;
}

/** Characters of tool-call arguments per streamed piece. */
export const ARGUMENT_PIECE_CHARS = 12;

/**
 * The chunks of a streamed reply, in order: the role, one chunk per reasoning word, one per content
 * word (or the tool call and pieces of its arguments), the finish reason, then the usage chunk
 * when asked for. `[DONE]` is not a chunk; the writer adds it.
 */
export function streamChunks(plan: ReplyPlan, meta: ReplyMeta, includeUsage: boolean): CompletionChunk[] {
  const chunk = (delta: ChunkDelta, finish: CompletionChunk['choices'][0]['finish_reason'] = null): CompletionChunk => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const chunks = [chunk({ role: 'assistant', content: '' })];
  plan.reasoning.forEach((word, i) => chunks.push(chunk({ reasoning_content: i === 0 ? word : ` ${word}` })));
  plan.content.forEach((word, i) => chunks.push(chunk({ content: i === 0 ? word : ` ${word}` })));
  if (plan.toolCall) {
    const { name, arguments: args } = plan.toolCall;
    chunks.push(chunk({ tool_calls: [{ index: 0, id: meta.toolCallId, type: 'function', function: { name, arguments: '' } }] }));
    for (let at = 0; at < args.length; at += ARGUMENT_PIECE_CHARS) {
      chunks.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(at, at + ARGUMENT_PIECE_CHARS) } }] }));
    }
  }
  chunks.push(chunk({}, plan.finishReason));
  if (includeUsage) chunks.push({ ...chunk({}), choices: [], usage: plan.usage });
  return chunks;
}
