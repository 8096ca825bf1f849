import { AppError, buildErrorBody, ERROR_CODES, errorTypeForStatus } from './index';

describe('errorTypeForStatus (docs/api.md#status-and-type)', () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'insufficient_quota'],
    [403, 'permission_error'],
    [404, 'invalid_request_error'],
    [405, 'invalid_request_error'],
    [422, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
  ])('%i -> %s', (status, type) => {
    expect(errorTypeForStatus(status)).toBe(type);
  });

  it('falls back by class for statuses the table does not name', () => {
    expect(errorTypeForStatus(504)).toBe('server_error');
    expect(errorTypeForStatus(409)).toBe('invalid_request_error');
  });
});

describe('ERROR_CODES', () => {
  it.each([
    ['INVALID_JSON', 400],
    ['MISSING_API_KEY', 401],
    ['INVALID_API_KEY', 401],
    ['FREE_TIER_DAILY_LIMIT', 402],
    ['ACCOUNT_SUSPENDED', 403],
    ['NOT_FOUND', 404],
    ['METHOD_NOT_ALLOWED', 405],
    ['rate_limit_error', 429],
    ['concurrency_limit', 429],
    ['INTERNAL_ERROR', 500],
    ['UPSTREAM_INTERRUPTED', 502],
    ['UPSTREAM_DOWN', 503],
  ] as const)('%s has status %i', (code, status) => {
    expect(ERROR_CODES[code]).toBe(status);
  });
});

describe('buildErrorBody', () => {
  it('always has message, type, code and param (null when absent)', () => {
    expect(buildErrorBody({ status: 404, code: 'NOT_FOUND', message: 'no such path' })).toEqual({
      error: { message: 'no such path', type: 'invalid_request_error', code: 'NOT_FOUND', param: null },
    });
  });

  it('adds the extras that are set and no others', () => {
    const err = new AppError('FREE_TIER_EXHAUSTED', 'insufficient balance', { balance: 0.5, requiredLyd: 1.25 });
    expect(buildErrorBody(err.describe())).toEqual({
      error: {
        message: 'insufficient balance',
        type: 'insufficient_quota',
        code: 'FREE_TIER_EXHAUSTED',
        param: null,
        balance: 0.5,
        requiredLyd: 1.25,
      },
    });
  });

  it('keeps a provider status and code that the gateway does not own', () => {
    const body = buildErrorBody({ status: 422, code: 'invalid_request_error', message: 'bad role (request id abc)', param: 'messages' });
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request_error', param: 'messages' });
  });

  it('lets a code carry another status where docs/api.md#every-error-code says so', () => {
    const err = new AppError('MODEL_NOT_FOUND', 'unknown model', { param: 'model' }, 404);
    expect(err.status).toBe(404);
    expect(buildErrorBody(err.describe()).error).toMatchObject({ code: 'MODEL_NOT_FOUND', param: 'model' });
  });
});
