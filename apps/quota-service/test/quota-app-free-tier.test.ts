import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { quotaBesideBilling } from './quota-beside-billing';

describe('quota-service over gRPC: free tier and the end of a request, billed through the outbox', () => {
  const stack = quotaBesideBilling();
  const { startApp } = stack;
  let seq = 0;
  const freeRequest = (accountId: string, overrides: Partial<quotaV1.ReserveFreeRequest> = {}): quotaV1.ReserveFreeRequest => ({
    accountId,
    requestId: `req_${++seq}`,
    model: 'vendor-v4-flash',
    thinking: false,
    textPromptTokens: 1000,
    imageCount: 0,
    newMessageTokens: 10,
    jsonBytes: 2000,
    maxTokens: 8192,
    ...overrides,
  });

  it('reads and changes the free-tier settings', async () => {
    const { quota } = await startApp({ FREE_DAILY_TOKENS: '5000' });
    const set = (req: quotaV1.SetFreeTierSettingsRequest) => quota.setFreeTierSettings(req);
    expect(await set({})).toEqual({ settings: { dailyTokens: 5000, poolTokens: 50_000_000, paused: false, enabled: true } });
    expect(await set({ paused: true, poolTokens: 10 })).toEqual({
      settings: { dailyTokens: 5000, poolTokens: 10, paused: true, enabled: true },
    });
    expect(await set({ paused: false, poolTokens: 50_000_000 })).toMatchObject({ settings: { paused: false } });
    await expect(set({ dailyTokens: -1 })).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('tells an account its free allowance of today (GetFreeAllowance, for the console)', async () => {
    const { quota } = await startApp({ FREE_DAILY_TOKENS: '10000' });
    const allowance = (accountId: string) => quota.getFreeAllowance({ accountId });
    const accountId = `acct_allowance_${Date.now()}`;
    expect(await allowance(accountId)).toEqual({ dailyTokens: 10_000, usedTokens: 0, remainingTokens: 10_000, available: true });
    const admitted = await quota.admit({ ...freeRequest(accountId), promptTokens: 1100, keyId: '' });
    expect(admitted).toMatchObject({ outcome: quotaV1.AdmitOutcome.ADMIT_OUTCOME_FREE });
    expect(await allowance(accountId)).toEqual({
      dailyTokens: 10_000,
      usedTokens: 1100 + 2048,
      remainingTokens: 10_000 - 3148,
      available: true,
    });
    await expect(allowance('')).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });
});
