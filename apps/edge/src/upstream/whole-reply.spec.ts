import { AppError } from '@gw/errors';
import { ProviderRefusal } from './provider-refusal';
import { judgeWholeReply } from './whole-reply';

const reply = (status: number, body: string, providerRequestId = 'prov-1') => ({
  status,
  contentType: 'application/json',
  providerRequestId,
  body: Buffer.from(body),
});
const describeError = (error: Error | undefined) =>
  error instanceof AppError || error instanceof ProviderRefusal ? error.describe() : undefined;

describe('judgeWholeReply', () => {
  it('bills a reply by its usage', () => {
    const verdict = judgeWholeReply(reply(200, '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}'));
    expect(verdict).toEqual({ outcome: { kind: 'reported', usage: { promptTokens: 5, completionTokens: 2 } }, error: undefined });
  });

  it('estimates a reply without usage', () => {
    expect(judgeWholeReply(reply(200, '{"choices":[]}'))).toEqual({ outcome: { kind: 'partial' }, error: undefined });
  });

  it.each([
    ['an empty 200', 200, '', 502],
    ['an HTML 200', 200, '<html></html>', 502],
    ['a JSON array', 200, '[1]', 502],
    ['a redirect', 302, '', 502],
    ['an HTML 503', 503, '<html>busy</html>', 503],
    ['a 400 without an error object', 400, '{"detail":"no"}', 400],
  ])('%s is UPSTREAM_ERROR and bills nothing', (_, status, body, answered) => {
    const verdict = judgeWholeReply(reply(status, body));
    expect(verdict.outcome).toEqual({ kind: 'nothing' });
    expect(describeError(verdict.error)).toMatchObject({ status: answered, code: 'UPSTREAM_ERROR', upstreamStatus: status });
  });

  it('passes a refusal on with its status, code and param, the provider request id ending the message', () => {
    const body = '{"error":{"message":"Invalid n.","type":"invalid_request_error","param":"n","code":"invalid_request_error"}}';
    const verdict = judgeWholeReply(reply(400, body, 'prov-abc'));
    expect(verdict.outcome).toEqual({ kind: 'nothing' });
    expect(describeError(verdict.error)).toEqual({
      status: 400,
      code: 'invalid_request_error',
      param: 'n',
      message: 'Invalid n. Provider request id: prov-abc',
    });
  });

  it('falls back to the type as code, and says when the provider sent no request id', () => {
    const verdict = judgeWholeReply({
      ...reply(429, '{"error":{"message":"Slow down.","type":"rate_limit_error"}}'),
      providerRequestId: undefined,
    });
    expect(describeError(verdict.error)).toMatchObject({
      status: 429,
      code: 'rate_limit_error',
      param: null,
      message: 'Slow down. Provider request id: unknown',
    });
  });
});
