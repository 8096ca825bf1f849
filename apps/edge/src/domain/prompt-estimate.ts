import { MAX_BODY_BYTES, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { countedPromptTokens } from '@gw/chat-validation';
import { TokenCounter } from './token-counter';

/** Tokens a message costs beyond its text (role and separators), as chat formats count them. */
const TOKENS_PER_MESSAGE = 4;

/**
 * What the edge knows of a request's prompt before the provider counts it. Every figure is
 * within the bound quota-service takes (libs/bounds): a prompt longer than the context window is
 * one the provider will refuse, so counting it as the window changes no decision.
 */
export interface PromptMeasure {
  /** Tokens of every message's text and of the tool definitions, images not included. */
  textTokens: number;
  imageCount: number;
  /** Tokens of the last user message: the new message of a conversation. */
  newMessageTokens: number;
  /** The body's size in bytes with the image data left out. */
  jsonBytes: number;
}

interface MessageLike {
  role?: unknown;
  content?: unknown;
}

const isImagePart = (part: { type?: unknown }) => part.type === 'image_url' || part.type === 'image';

function imageDataBytes(part: unknown): number {
  const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
  return typeof url === 'string' ? Buffer.byteLength(url, 'utf8') : 0;
}

/** The text of a message's content: a string, or the text parts of an array (images left out). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .filter((part) => typeof part === 'object' && part !== null && !isImagePart(part))
    .map((part) => (typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : JSON.stringify(part)))
    .join('\n');
}

/** Measures a checked chat request's prompt with a tokenizer (not by counting characters), in bounded time. */
export function measurePrompt(body: Record<string, unknown>, rawBytes: number, imageCount: number): PromptMeasure {
  const messages: MessageLike[] = Array.isArray(body.messages)
    ? body.messages.filter((m): m is MessageLike => typeof m === 'object' && m !== null)
    : [];
  const counter = new TokenCounter();
  let textTokens = body.tools === undefined ? 0 : counter.count(JSON.stringify(body.tools));
  let imageBytes = 0;
  let newMessageTokens = 0;
  for (const message of messages) {
    const tokens = counter.count(textOf(message.content)) + TOKENS_PER_MESSAGE;
    textTokens += tokens;
    if (message.role === 'user') newMessageTokens = tokens;
    if (Array.isArray(message.content))
      for (const part of message.content)
        if (typeof part === 'object' && part !== null && isImagePart(part)) imageBytes += imageDataBytes(part);
  }
  return {
    textTokens: Math.min(textTokens, MAX_PROMPT_TOKENS),
    imageCount,
    newMessageTokens: Math.min(newMessageTokens, MAX_PROMPT_TOKENS),
    jsonBytes: Math.min(Math.max(0, rawBytes - imageBytes), MAX_BODY_BYTES),
  };
}

/**
 * The prompt tokens held against a balance: the tokenizer's count plus 10% (tokenizers differ),
 * plus the image allowance, at most the context window (no prompt the provider runs is longer,
 * and billing-service takes no more). Billing charges the provider's real count, never more
 * than held.
 */
export function promptTokensToHold(measure: PromptMeasure): number {
  return Math.min(countedPromptTokens(measure.textTokens, measure.imageCount), MAX_PROMPT_TOKENS);
}
