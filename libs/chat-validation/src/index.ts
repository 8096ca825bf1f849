export { checkChatRequest } from './check-chat-request';
export { DEFAULT_MAX_TOKENS, MAX_IMAGES, MAX_TOKENS_CEILING } from './chat-request';
export type { CheckedChatRequest, UsableModel } from './chat-request';
export { countedPromptTokens, TOKENS_PER_IMAGE } from './counted-prompt-tokens';
