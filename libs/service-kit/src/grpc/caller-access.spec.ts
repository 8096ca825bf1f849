import { status } from '@grpc/grpc-js';
import { judgeCall } from './caller-access';

const callers = { '/quota.v1.Quota/CountRequest': ['edge', 'chat-product'], '/quota.v1.Quota/SetFreeTierSettings': ['ctl'] };
const cert = (identity: string) => ({ subjectaltname: `URI:spiffe://chat-gateway/${identity}`, subject: { CN: identity } });

describe('judgeCall', () => {
  it('lets a listed identity through', () => {
    expect(judgeCall(callers, '/quota.v1.Quota/CountRequest', cert('chat-product'))).toBeUndefined();
    expect(judgeCall(callers, '/quota.v1.Quota/SetFreeTierSettings', cert('ctl'))).toBeUndefined();
  });

  it('refuses an identity not listed with PERMISSION_DENIED, naming it', () => {
    expect(judgeCall(callers, '/quota.v1.Quota/SetFreeTierSettings', cert('chat-product'))).toEqual({
      code: status.PERMISSION_DENIED,
      caller: 'chat-product',
      details: 'chat-product may not call /quota.v1.Quota/SetFreeTierSettings',
    });
  });

  it('refuses every caller of a method with no callers declared', () => {
    expect(judgeCall(callers, '/quota.v1.Quota/Unlisted', cert('edge'))?.code).toBe(status.PERMISSION_DENIED);
  });

  it('refuses a caller without a valid certificate with UNAUTHENTICATED', () => {
    expect(judgeCall(callers, '/quota.v1.Quota/CountRequest', undefined)).toMatchObject({
      code: status.UNAUTHENTICATED,
      caller: 'unknown',
    });
  });

  it('keeps the health service open to every caller, certificate or not', () => {
    expect(judgeCall(callers, '/grpc.health.v1.Health/Check', undefined)).toBeUndefined();
    expect(judgeCall(callers, '/grpc.health.v1.Health/Watch', cert('anyone'))).toBeUndefined();
  });
});
