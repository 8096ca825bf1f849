import { ChatRequest } from './chat-request';
import { splitWords } from './token-count';
import { toolArguments } from './tool-arguments';

/** The reasoning the simulated model "thinks" when thinking is on, word for word. */
export const REASONING_TEXT = 'The user wants the last message repeated, so I will echo it back word for word.';

const FILLER = splitWords('lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor');

/** Token counts of a reply, in the provider's `usage` shape. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details?: { reasoning_tokens: number };
}

/** A function call the reply makes instead of text. */
export interface PlannedToolCall {
  name: string;
  /** JSON string. */
  arguments: string;
}

/** Everything a reply says, decided before a byte is written; both wire forms are built from it. */
export interface ReplyPlan {
  thinking: boolean;
  /** Reasoning words, sent before the content (empty when thinking is off). */
  reasoning: string[];
  /** Content words; the content is these joined by single spaces. */
  content: string[];
  toolCall: PlannedToolCall | undefined;
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: Usage;
}

/**
 * Plans the reply, a fixed function of the request: "Echo: " plus the words of `text` (the last
 * user message without its sim markers), or "Tool result: ..." after a tool message; `words`
 * sets the length instead. Reasoning comes first and counts inside max_tokens; one word is one token.
 */
export function planReply(request: ChatRequest, text: string, words?: number): ReplyPlan {
  const thought = request.thinking ? splitWords(REASONING_TEXT) : [];
  const reasoning = thought.slice(0, request.maxTokens);
  const budget = request.maxTokens - reasoning.length;
  const toolCall = chooseToolCall(request, text);
  if (toolCall) {
    const callTokens = Math.ceil((toolCall.name.length + toolCall.arguments.length) / 4);
    return plan(request, reasoning, [], toolCall, 'tool_calls', reasoning.length + callTokens);
  }
  const base = request.lastRole === 'tool' ? ['Tool', 'result:', ...splitWords(request.lastText)] : ['Echo:', ...splitWords(text)];
  const wanted = words === undefined ? base : Array.from({ length: words }, (_, i) => base[i] ?? FILLER[(i - base.length) % FILLER.length]);
  const cut = wanted.slice(0, Math.max(budget, 0));
  const content = request.jsonMode && cut.length > 0 ? splitWords(JSON.stringify({ reply: cut.join(' ') })) : cut;
  const finish = reasoning.length < thought.length || cut.length < wanted.length ? 'length' : 'stop';
  return plan(request, reasoning, content, undefined, finish, reasoning.length + content.length);
}

function chooseToolCall(request: ChatRequest, text: string): PlannedToolCall | undefined {
  const { tools, toolChoice } = request;
  if (tools.length === 0 || toolChoice === 'none') return undefined;
  const asked = request.lastRole === 'user' && /\bweather\b/i.test(text);
  if (toolChoice === 'auto' && !asked) return undefined;
  const tool =
    typeof toolChoice === 'object'
      ? tools.find((candidate) => candidate.name === toolChoice.name)
      : (tools.find((candidate) => /weather/i.test(candidate.name)) ?? tools[0]);
  return tool && { name: tool.name, arguments: toolArguments(tool.parameters, text) };
}

function plan(
  request: ChatRequest,
  reasoning: string[],
  content: string[],
  toolCall: PlannedToolCall | undefined,
  finishReason: ReplyPlan['finishReason'],
  completionTokens: number,
): ReplyPlan {
  const usage: Usage = {
    prompt_tokens: request.promptTokens,
    completion_tokens: completionTokens,
    total_tokens: request.promptTokens + completionTokens,
  };
  if (request.thinking) usage.completion_tokens_details = { reasoning_tokens: reasoning.length };
  return { thinking: request.thinking, reasoning, content, toolCall, finishReason, usage };
}
