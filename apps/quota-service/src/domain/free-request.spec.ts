import { TEST_DEFAULTS, TEST_LIMITS } from '../../test/store-contracts/free-tier-fixtures';
import { checkFreeRequest, countedPromptTokens, FreeRequest, freeMaxTokens } from './free-request';

const EVENING = Date.UTC(2031, 4, 6, 20);
const request: FreeRequest = {
  accountId: 'a',
  requestId: 'r',
  model: 'vendor-v4-flash',
  thinking: false,
  textPromptTokens: 1000,
  imageCount: 0,
  newMessageTokens: 10,
  jsonBytes: 100,
  maxTokens: 8192,
};

describe('free request rules', () => {
  it('counts the prompt as estimate + 10% rounded up + 1,024 per image', () => {
    expect(countedPromptTokens({ textPromptTokens: 0, imageCount: 0 })).toBe(0);
    expect(countedPromptTokens({ textPromptTokens: 1, imageCount: 0 })).toBe(2);
    expect(countedPromptTokens({ textPromptTokens: 10, imageCount: 0 })).toBe(11);
    expect(countedPromptTokens({ textPromptTokens: 1000, imageCount: 3 })).toBe(1100 + 3072);
  });

  it('lowers max_tokens to the free reply cap only', () => {
    expect(freeMaxTokens({ maxTokens: 8192 }, TEST_LIMITS)).toBe(2048);
    expect(freeMaxTokens({ maxTokens: 2048 }, TEST_LIMITS)).toBe(2048);
    expect(freeMaxTokens({ maxTokens: 1 }, TEST_LIMITS)).toBe(1);
  });

  it('takes the first failing check in the documented order', () => {
    const worst = { ...request, model: 'vendor-v4-pro', thinking: true, jsonBytes: 10 ** 9 };
    const off = { ...TEST_DEFAULTS, enabled: false, paused: true };
    expect(checkFreeRequest(worst, off, TEST_LIMITS, EVENING)).toBe('switched-off');
    expect(checkFreeRequest(worst, { ...off, enabled: true }, TEST_LIMITS, EVENING)).toBe('paused');
    expect(checkFreeRequest(worst, TEST_DEFAULTS, TEST_LIMITS, EVENING)).toBe('model');
    expect(checkFreeRequest({ ...worst, model: 'vendor-v4-flash' }, TEST_DEFAULTS, TEST_LIMITS, EVENING)).toBe('thinking');
    expect(checkFreeRequest({ ...worst, model: 'vendor-v4-flash', thinking: false }, TEST_DEFAULTS, TEST_LIMITS, EVENING)).toBe(
      'request-too-large',
    );
    expect(checkFreeRequest(request, TEST_DEFAULTS, TEST_LIMITS, EVENING)).toBeUndefined();
  });

  it('uses the configured free model', () => {
    const limits = { ...TEST_LIMITS, freeModel: 'vendor-v5-mini' };
    expect(checkFreeRequest(request, TEST_DEFAULTS, limits, EVENING)).toBe('model');
    expect(checkFreeRequest({ ...request, model: 'vendor-v5-mini' }, TEST_DEFAULTS, limits, EVENING)).toBeUndefined();
  });
});
