import { ChatRequest, DEFAULT_MAX_TOKENS } from './chat-request';
import { planReply, REASONING_TEXT } from './reply-plan';
import { splitWords } from './token-count';

const request = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'm',
  stream: false,
  includeUsage: false,
  maxTokens: DEFAULT_MAX_TOKENS,
  thinking: false,
  jsonMode: false,
  tools: [],
  toolChoice: 'auto',
  promptTokens: 10,
  lastRole: 'user',
  lastUserText: '',
  lastText: '',
  ...over,
});
const REASONING_WORDS = splitWords(REASONING_TEXT).length;
const weatherTool = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } } },
};

describe('planReply', () => {
  it('echoes the text, one token per word', () => {
    const plan = planReply(request(), 'hello big world');
    expect(plan.content.join(' ')).toBe('Echo: hello big world');
    expect(plan).toMatchObject({ finishReason: 'stop', reasoning: [], toolCall: undefined });
    expect(plan.usage).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
  });

  it('cuts to max_tokens and says length', () => {
    const plan = planReply(request({ maxTokens: 2 }), 'hello big world');
    expect(plan.content).toEqual(['Echo:', 'hello']);
    expect(plan.finishReason).toBe('length');
    expect(plan.usage.completion_tokens).toBe(2);
  });

  it('makes exactly the asked number of words, padding with filler', () => {
    expect(planReply(request(), 'hi', 5).content).toEqual(['Echo:', 'hi', 'lorem', 'ipsum', 'dolor']);
    expect(planReply(request(), 'hi there', 1).content).toEqual(['Echo:']);
    expect(planReply(request(), 'hi', 0)).toMatchObject({ content: [], finishReason: 'stop' });
  });

  it('thinks first, inside the budget, and reports reasoning tokens', () => {
    const plan = planReply(request({ thinking: true }), 'hi');
    expect(plan.reasoning.join(' ')).toBe(REASONING_TEXT);
    expect(plan.usage).toMatchObject({
      completion_tokens: REASONING_WORDS + 2,
      completion_tokens_details: { reasoning_tokens: REASONING_WORDS },
    });
    const cut = planReply(request({ thinking: true, maxTokens: 3 }), 'hi');
    expect(cut).toMatchObject({ content: [], finishReason: 'length', usage: { completion_tokens: 3 } });
  });

  it('answers with a JSON object in JSON mode, with as many words as the text', () => {
    const plan = planReply(request({ jsonMode: true }), 'say "hi" now');
    expect(JSON.parse(plan.content.join(' '))).toEqual({ reply: 'Echo: say "hi" now' });
    expect(plan.usage.completion_tokens).toBe(4);
  });

  it('calls the weather tool when asked about the weather, with arguments from its schema', () => {
    const plan = planReply(request({ tools: [{ name: 'other', parameters: {} }, weatherTool] }), 'What is the weather in Benghazi?');
    expect(plan.finishReason).toBe('tool_calls');
    expect(plan.toolCall?.name).toBe('get_weather');
    expect(JSON.parse(plan.toolCall?.arguments ?? '')).toEqual({ location: 'Benghazi', unit: 'celsius' });
    expect(plan.content).toEqual([]);
  });

  it('calls no tool without the word weather, with tool_choice none, or after a tool result', () => {
    expect(planReply(request({ tools: [weatherTool] }), 'hello').toolCall).toBeUndefined();
    expect(planReply(request({ tools: [weatherTool], toolChoice: 'none' }), 'weather?').toolCall).toBeUndefined();
    const after = planReply(request({ tools: [weatherTool], lastRole: 'tool', lastText: 'sunny 30C' }), 'weather?');
    expect(after).toMatchObject({ toolCall: undefined, content: ['Tool', 'result:', 'sunny', '30C'], finishReason: 'stop' });
  });

  it('calls the forced tool whatever the text says', () => {
    const plan = planReply(request({ tools: [weatherTool, { name: 'lookup', parameters: {} }], toolChoice: { name: 'lookup' } }), 'hi');
    expect(plan.toolCall).toEqual({ name: 'lookup', arguments: '{}' });
    expect(planReply(request({ tools: [weatherTool], toolChoice: 'required' }), 'hi').toolCall?.name).toBe('get_weather');
  });

  it('gives the same plan for the same request', () => {
    expect(planReply(request({ thinking: true }), 'same words')).toEqual(planReply(request({ thinking: true }), 'same words'));
  });
});
