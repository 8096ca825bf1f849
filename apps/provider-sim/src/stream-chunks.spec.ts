import { ChatRequest, DEFAULT_MAX_TOKENS } from './chat-request';
import { completionBody } from './completion-body';
import { ReplyMeta } from './reply-meta';
import { planReply } from './reply-plan';
import { streamChunks } from './stream-chunks';

const meta: ReplyMeta = { id: 'chatcmpl-1', created: 1, model: 'm', toolCallId: 'call_1' };
const request = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'm',
  stream: true,
  includeUsage: false,
  maxTokens: DEFAULT_MAX_TOKENS,
  thinking: false,
  jsonMode: false,
  tools: [],
  toolChoice: 'auto',
  promptTokens: 3,
  lastRole: 'user',
  lastUserText: '',
  lastText: '',
  ...over,
});

describe('streamChunks', () => {
  it('sends the role, one chunk per word, then the finish reason', () => {
    const chunks = streamChunks(planReply(request(), 'a b'), meta, false);
    expect(chunks.map((chunk) => chunk.choices[0].delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Echo:' },
      { content: ' a' },
      { content: ' b' },
      {},
    ]);
    expect(chunks.map((chunk) => chunk.choices[0].finish_reason)).toEqual([null, null, null, null, 'stop']);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === 'chatcmpl-1')).toBe(true);
  });

  it('adds a usage chunk without choices only when asked', () => {
    const plan = planReply(request(), 'a');
    const chunks = streamChunks(plan, meta, true);
    expect(chunks[chunks.length - 1]).toMatchObject({ choices: [], usage: plan.usage });
    expect(streamChunks(plan, meta, false).some((chunk) => chunk.usage)).toBe(false);
  });

  it('streams reasoning before content, and the pieces add up to the whole reply', () => {
    const plan = planReply(request({ thinking: true }), 'x y');
    const deltas = streamChunks(plan, meta, false).map((chunk) => chunk.choices[0].delta);
    const message = completionBody(plan, meta).choices[0].message;
    expect(deltas.map((delta) => delta.reasoning_content ?? '').join('')).toBe(message.reasoning_content);
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe(message.content);
    expect(deltas.findIndex((delta) => delta.content)).toBeGreaterThan(deltas.findLastIndex((delta) => delta.reasoning_content));
  });

  it('streams a tool call as its header then pieces of its arguments', () => {
    const tool = { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } };
    const plan = planReply(request({ tools: [tool] }), 'weather in Misrata');
    const chunks = streamChunks(plan, meta, false);
    const calls = chunks.flatMap((chunk) => chunk.choices[0].delta.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(calls.map((call) => call.function.arguments).join('')).toBe('{"location":"Misrata"}');
    expect(calls.length).toBeGreaterThan(2);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('tool_calls');
  });
});
