import { MAX_COMPLETION_TOKENS, MAX_IMAGES } from '@gw/bounds';

/** A model a caller may use, as far as the checks need it. */
export interface UsableModel {
  id: string;
  vision: boolean;
}

/** Reply length limits (docs/api.md#post-v1chatcompletions). */
export const DEFAULT_MAX_TOKENS = 8192;
export const MAX_TOKENS_CEILING = MAX_COMPLETION_TOKENS;
/** Images per request (docs/api.md#limits). */
export { MAX_IMAGES };

/** A chat request that passed the gateway's own checks, ready to forward. */
export interface CheckedChatRequest {
  /** The body to send to the provider: the caller's, with max_tokens settled. */
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /** The reply limit the provider gets (default 8,192, at most 32,768). */
  maxTokens: number;
  /** Whether the caller asked for the usage chunk of a stream. */
  includeUsage: boolean;
  imageCount: number;
}
