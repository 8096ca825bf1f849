/** The bounds of every token count, count and id the services accept (docs/api.md#limits): constants only. */
export {
  MAX_BODY_BYTES,
  MAX_COMPLETION_TOKENS,
  MAX_FREE_TIER_TOKENS,
  MAX_ID_LENGTH,
  MAX_IMAGES,
  MAX_KEY_USES_PER_CALL,
  MAX_MODEL_ID_LENGTH,
  MAX_PROMPT_TOKENS,
  TOKENS_PER_IMAGE,
} from './request-bounds';
