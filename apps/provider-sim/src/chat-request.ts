import { checkImages } from './image-check';
import { isRecord } from './is-record';
import { ProviderRefusal, refusal } from './provider-refusal';
import { countPromptTokens } from './token-count';
import { readToolOptions, ToolChoice, ToolDefinition } from './tool-options';

/** Roles the provider knows. */
export const MESSAGE_ROLES = ['system', 'user', 'assistant', 'tool', 'developer'] as const;

/** One of {@link MESSAGE_ROLES}. */
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** Reply budget when neither max_tokens nor max_completion_tokens is sent. */
export const DEFAULT_MAX_TOKENS = 8192;

/** A chat request the provider accepted, reduced to what shapes the reply. */
export interface ChatRequest {
  model: string;
  stream: boolean;
  /** `stream_options.include_usage`: a usage chunk before `[DONE]`. */
  includeUsage: boolean;
  /** Reply budget in tokens; reasoning counts inside it. */
  maxTokens: number;
  thinking: boolean;
  /** `response_format: {type: "json_object"}`. */
  jsonMode: boolean;
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  promptTokens: number;
  /** Role of the last message (a `tool` result gets a plain answer, never another call). */
  lastRole: MessageRole;
  /** Text of the last user message, with every text part joined by a space. */
  lastUserText: string;
  /** Text of the last message of any role. */
  lastText: string;
}

/** The request, or why the provider refuses it. */
export type ChatRequestResult = { ok: true; request: ChatRequest } | { ok: false; refusal: ProviderRefusal };

const ROLES: ReadonlySet<string> = new Set(MESSAGE_ROLES);

/** Parses and checks a raw request body the way the provider does; pure. */
export function parseChatRequest(raw: string): ChatRequestResult {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return refuse(refusal(400, 'We could not parse the JSON body of your request. Send valid JSON.'));
  }
  if (!isRecord(body)) return refuse(refusal(400, 'The request body must be a JSON object.'));
  const messages = body.messages;
  if (!Array.isArray(messages)) {
    return refuse(refusal(422, 'Failed to deserialize the JSON body into the target type: missing field `messages`.', 'messages'));
  }
  if (messages.length === 0) return refuse(refusal(400, "Invalid 'messages': empty array. Expected at least 1 message.", 'messages'));
  for (const [index, message] of messages.entries()) {
    const role = isRecord(message) ? message.role : undefined;
    if (typeof role !== 'string' || !ROLES.has(role)) {
      const expected = MESSAGE_ROLES.join(', ');
      return refuse(
        refusal(
          422,
          `Failed to deserialize messages[${index}]: unknown role ${JSON.stringify(role)}, expected one of ${expected}.`,
          'messages',
        ),
      );
    }
  }
  const problem = checkFields(body) ?? checkImages(messages);
  if (problem) return refuse(problem);
  const tools = readToolOptions(body);
  if ('status' in tools) return refuse(tools);
  const maxTokens = readMaxTokens(body);
  if (typeof maxTokens !== 'number') return refuse(maxTokens);
  const typed = messages as { role: MessageRole; content?: unknown }[];
  const lastUser = [...typed].reverse().find((message) => message.role === 'user');
  const last = typed[typed.length - 1];
  const options = body.stream_options;
  return {
    ok: true,
    request: {
      model: body.model as string,
      stream: body.stream === true,
      includeUsage: isRecord(options) && options.include_usage === true,
      maxTokens,
      thinking: isThinking(body),
      jsonMode: isRecord(body.response_format) && body.response_format.type === 'json_object',
      ...tools,
      promptTokens: countPromptTokens(messages),
      lastRole: last.role,
      lastUserText: lastUser ? contentText(lastUser.content) : '',
      lastText: contentText(last.content),
    },
  };
}

function refuse(reason: ProviderRefusal): ChatRequestResult {
  return { ok: false, refusal: reason };
}

function checkFields(body: Record<string, unknown>): ProviderRefusal | undefined {
  if (typeof body.model !== 'string' || body.model === '') return refusal(400, 'You must provide a model parameter.', 'model');
  if (present(body.n) && body.n !== 1) return refusal(400, "Invalid 'n': only 1 is supported.", 'n');
  const stop = body.stop;
  if (present(stop) && typeof stop !== 'string') {
    if (!Array.isArray(stop) || stop.some((item) => typeof item !== 'string')) {
      return refusal(400, "Invalid 'stop': expected a string or an array of strings.", 'stop');
    }
    if (stop.length > 16) return refusal(400, `Invalid 'stop': array too long. Expected at most 16 strings, got ${stop.length}.`, 'stop');
  }
  if (present(body.temperature) && !inRange(body.temperature, 0, 2)) {
    return refusal(400, "Invalid 'temperature': must be a number from 0 to 2.", 'temperature');
  }
  if (present(body.top_logprobs) && !(Number.isInteger(body.top_logprobs) && inRange(body.top_logprobs, 0, 20))) {
    return refusal(400, "Invalid 'top_logprobs': must be a whole number from 0 to 20.", 'top_logprobs');
  }
  return undefined;
}

function readMaxTokens(body: Record<string, unknown>): number | ProviderRefusal {
  const field = present(body.max_completion_tokens) ? 'max_completion_tokens' : 'max_tokens';
  const value = body[field];
  if (!present(value)) return DEFAULT_MAX_TOKENS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    return refusal(400, `Invalid '${field}': must be a whole number of at least 1.`, field);
  }
  return value;
}

function isThinking(body: Record<string, unknown>): boolean {
  const type = isRecord(body.thinking) ? body.thinking.type : undefined;
  if (type === 'enabled' || type === 'adaptive') return true;
  return present(body.reasoning_effort) && body.reasoning_effort !== 'none';
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join(' ');
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function inRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && value >= min && value <= max;
}
