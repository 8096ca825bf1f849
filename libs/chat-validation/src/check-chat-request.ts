import { AppError } from '@gw/errors';
import { CheckedChatRequest, DEFAULT_MAX_TOKENS, MAX_TOKENS_CEILING, UsableModel } from './chat-request';
import { countImages } from './count-images';
import { nestsDeeperThan } from './json-depth';

/** Deepest nesting accepted: enough for any tool schema, and far from what would exhaust the stack. */
const MAX_JSON_DEPTH = 128;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(param: string, message: string): AppError {
  return new AppError('INVALID_PARAMETER', message, { param });
}

function tokenLimit(body: Record<string, unknown>, field: 'max_tokens' | 'max_completion_tokens'): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalid(field, `${field} must be a whole number >= 1`);
  return Math.min(value, MAX_TOKENS_CEILING);
}

function parseObject(rawBody: string): Record<string, unknown> {
  if (nestsDeeperThan(rawBody, MAX_JSON_DEPTH))
    throw new AppError('INVALID_JSON', `The request body nests more than ${MAX_JSON_DEPTH} levels deep.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw new AppError('INVALID_JSON', 'The request body is not valid JSON.');
  }
  if (!isObject(parsed)) throw new AppError('INVALID_JSON', 'The request body must be a JSON object.');
  return parsed;
}

/**
 * The gateway's own checks of a chat request (docs/api.md: the chat request, every error code), in the order given there.
 * Everything else is the provider's to refuse. Throws AppError; returns the body to forward:
 * the caller's, with each reply limit lowered to 32,768 (max_tokens 8,192 when neither is sent)
 * and, on a stream, `stream_options.include_usage` always on so the reply can be billed.
 */
export function checkChatRequest(rawBody: string, models: readonly UsableModel[]): CheckedChatRequest {
  const body = parseObject(rawBody);

  if (typeof body.model !== 'string') throw invalid('model', 'model must be a string');
  const model = models.find((m) => m.id === body.model);
  if (!model)
    throw new AppError('MODEL_NOT_FOUND', `The model ${body.model} does not exist or you do not have access to it.`, { param: 'model' });

  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw invalid('stream', 'stream must be true or false');
  for (const legacy of ['functions', 'function_call']) {
    if (body[legacy] !== undefined) throw invalid(legacy, `${legacy} is not supported; use tools and tool_choice`);
  }
  const maxTokens = tokenLimit(body, 'max_tokens');
  const maxCompletionTokens = tokenLimit(body, 'max_completion_tokens');
  if (isObject(body.response_format) && body.response_format.type === 'json_schema') {
    throw invalid('response_format', 'response_format json_schema is not supported; use json_object');
  }

  const imageCount = countImages(body.messages, model);
  const forwarded: Record<string, unknown> = { ...body };
  if (maxCompletionTokens !== undefined) forwarded.max_completion_tokens = maxCompletionTokens;
  if (maxTokens !== undefined || maxCompletionTokens === undefined) forwarded.max_tokens = maxTokens ?? DEFAULT_MAX_TOKENS;

  const stream = body.stream === true;
  const asked = isObject(body.stream_options) ? body.stream_options : {};
  // A stream_options that is not an object is left for the provider to refuse.
  if (stream && (body.stream_options == null || isObject(body.stream_options)))
    forwarded.stream_options = { ...asked, include_usage: true };
  return {
    body: forwarded,
    model: model.id,
    stream,
    // The provider reads max_completion_tokens first, as the wire format says.
    maxTokens: maxCompletionTokens ?? maxTokens ?? DEFAULT_MAX_TOKENS,
    includeUsage: stream && asked.include_usage === true,
    imageCount,
  };
}
