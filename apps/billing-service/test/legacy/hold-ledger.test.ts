import { grpcCodeOf } from '@gw/service-kit';
import { status } from '@grpc/grpc-js';
import { AuthorizeParams } from '../../src/legacy/domain/hold-ledger';
import { codeOf } from '../billing-test-db';
import { HoldTestDb, openHoldTestDb } from './hold-test-db';

// vendor-v4-flash: 1 LYD in, 4 LYD out per million tokens; 1,000 + 8,192 tokens cost at most 33,768 micro-LYD.
const FLASH_WORST = 1000 + 8192 * 4;

describe("HoldLedger on Postgres: the older release's holds", () => {
  let t: HoldTestDb;
  let seq = 0;
  const newAccount = () => `acct_${++seq}`;
  const newRequest = () => `req_${++seq}`;
  const flash = (accountId: string, requestId = newRequest()): AuthorizeParams => ({
    requestId,
    accountId,
    model: 'vendor-v4-flash',
    promptTokens: 1000,
    maxTokens: 8192,
  });
  const funded = async (micro: number) => {
    const id = newAccount();
    await t.ledger.addBalance(id, micro);
    return id;
  };
  const ledgerSum = async (accountId: string) =>
    Number(
      (
        await t.db.query<{ s: string }>('SELECT COALESCE(sum(amount_micro), 0)::text AS s FROM billing.ledger WHERE account_id = $1', [
          accountId,
        ])
      ).rows[0].s,
    );

  beforeAll(async () => {
    t = await openHoldTestDb();
    await t.ledger.setPrice({ model: 'odd', inputMicroPerMillion: 3, outputMicroPerMillion: 7 });
  });
  afterAll(() => t.close());

  describe('Authorize', () => {
    it('holds the worst case, rounded up, and reports it as required', async () => {
      const account = await funded(1_000_000);
      expect(await t.holds.authorize(flash(account))).toEqual({ approved: true, balanceMicro: 1_000_000, requiredMicro: FLASH_WORST });
      const pro = await t.holds.authorize({ ...flash(account), model: 'vendor-v4-pro' });
      expect(pro).toEqual({ approved: true, balanceMicro: 1_000_000, requiredMicro: 4000 + 8192 * 16 + FLASH_WORST });
      const odd = await t.holds.authorize({
        requestId: newRequest(),
        accountId: account,
        model: 'odd',
        promptTokens: 333_334,
        maxTokens: 1,
      });
      expect(odd.requiredMicro).toBe(2 + FLASH_WORST + 135_072); // 333,334 × 3 + 7 = 1,000,009 micro-LYD per million → 2, plus the two holds
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000, heldMicro: FLASH_WORST + 135_072 + 2 });
    });

    it('approves at exactly the worst case and refuses one micro-LYD below, without a hold', async () => {
      const exact = await funded(FLASH_WORST);
      expect((await t.holds.authorize(flash(exact))).approved).toBe(true);
      expect(await t.store.getBalance(exact)).toEqual({ balanceMicro: FLASH_WORST, heldMicro: FLASH_WORST });

      const short = await funded(FLASH_WORST - 1);
      const request = flash(short);
      expect(await t.holds.authorize(request)).toEqual({ approved: false, balanceMicro: FLASH_WORST - 1, requiredMicro: FLASH_WORST });
      expect(await t.store.getBalance(short)).toEqual({ balanceMicro: FLASH_WORST - 1, heldMicro: 0 });
      expect(
        await codeOf(t.holds.settle({ requestId: request.requestId, promptTokens: 1, completionTokens: 1, usageEstimated: false })),
      ).toBe(status.NOT_FOUND);
    });

    it('refuses an account that has no balance at all', async () => {
      expect(await t.holds.authorize(flash(newAccount()))).toEqual({ approved: false, balanceMicro: 0, requiredMicro: FLASH_WORST });
    });

    it('shows the whole balance and counts what other requests hold in required, so that approved = balance >= required', async () => {
      const account = await funded(3 * FLASH_WORST - 1);
      const [first, second, third] = [flash(account), flash(account), flash(account)];
      expect(await t.holds.authorize(first)).toEqual({ approved: true, balanceMicro: 3 * FLASH_WORST - 1, requiredMicro: FLASH_WORST });
      expect(await t.holds.authorize(second)).toEqual({
        approved: true,
        balanceMicro: 3 * FLASH_WORST - 1,
        requiredMicro: 2 * FLASH_WORST,
      });
      expect(await t.holds.authorize(third)).toEqual({
        approved: false,
        balanceMicro: 3 * FLASH_WORST - 1,
        requiredMicro: 3 * FLASH_WORST,
      });
      expect(await t.holds.authorize(first)).toEqual({
        approved: true,
        balanceMicro: 3 * FLASH_WORST - 1,
        requiredMicro: 2 * FLASH_WORST,
      });

      await t.holds.releaseHold(second.requestId);
      expect(await t.holds.authorize(third)).toEqual({
        approved: true,
        balanceMicro: 3 * FLASH_WORST - 1,
        requiredMicro: 2 * FLASH_WORST,
      });
    });

    it('answers a model without a price with FAILED_PRECONDITION and bad counts with INVALID_ARGUMENT', async () => {
      const account = await funded(1_000_000);
      expect(await codeOf(t.holds.authorize({ ...flash(account), model: 'vendor-v9' }))).toBe(status.FAILED_PRECONDITION);
      expect(await codeOf(t.holds.authorize({ ...flash(account), maxTokens: -1 }))).toBe(status.INVALID_ARGUMENT);
      expect(await codeOf(t.holds.authorize({ ...flash(account), requestId: '' }))).toBe(status.INVALID_ARGUMENT);
      expect((await t.store.getBalance(account))?.heldMicro).toBe(0);
    });

    it('gives a repeated request id the same decision without a second hold, also once settled', async () => {
      const account = await funded(1_000_000);
      const request = flash(account);
      const first = await t.holds.authorize(request);
      expect(await t.holds.authorize(request)).toEqual(first);
      const again = await Promise.all(Array.from({ length: 5 }, () => t.holds.authorize(request)));
      expect(again).toEqual(Array(5).fill(first));
      expect((await t.store.getBalance(account))?.heldMicro).toBe(FLASH_WORST);

      await t.holds.settle({ requestId: request.requestId, promptTokens: 1000, completionTokens: 0, usageEstimated: false });
      expect(await t.holds.authorize(request)).toMatchObject({ approved: true, requiredMicro: FLASH_WORST });
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000 - 1000, heldMicro: 0 });
      expect(await codeOf(t.holds.authorize({ ...request, accountId: newAccount() }))).toBe(status.ALREADY_EXISTS);
    });

    it('holds once when a new request id is authorized 10 times at once', async () => {
      const account = await funded(1_000_000);
      const request = flash(account);
      const decisions = await Promise.all(Array.from({ length: 10 }, () => t.holds.authorize(request)));
      expect(decisions).toEqual(Array(10).fill({ approved: true, balanceMicro: 1_000_000, requiredMicro: FLASH_WORST }));
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000, heldMicro: FLASH_WORST });
    });

    it('places no hold at all for a caller already gone, and answers CANCELLED', async () => {
      const account = await funded(1_000_000);
      const placeHold = jest.spyOn(t.holdStore, 'placeHold');
      try {
        expect(await codeOf(t.holds.authorize(flash(account), () => true))).toBe(status.CANCELLED);
        expect(placeHold).not.toHaveBeenCalled();
      } finally {
        placeHold.mockRestore();
      }
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000, heldMicro: 0 });
    });

    it('releases the hold it placed when the caller went away meanwhile, and answers CANCELLED', async () => {
      const account = await funded(1_000_000);
      let gone = false;
      const request = flash(account);
      const original = t.holdStore.placeHold.bind(t.holdStore);
      // The caller goes while the hold is being written: after the statement, before the answer.
      const slow = jest.spyOn(t.holdStore, 'placeHold').mockImplementationOnce(async (hold) => {
        const outcome = await original(hold);
        gone = true;
        return outcome;
      });
      try {
        expect(await codeOf(t.holds.authorize(request, () => gone))).toBe(status.CANCELLED);
      } finally {
        slow.mockRestore();
      }
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000, heldMicro: 0 });
      expect(await t.holds.authorize(request)).toMatchObject({ approved: true });
    });

    it('holds at the price in force, also after the price changed since the last hold', async () => {
      const account = await funded(1_000_000);
      await t.ledger.setPrice({ model: 'repriced', inputMicroPerMillion: 1_000_000, outputMicroPerMillion: 1_000_000 });
      const repriced = (requestId = newRequest()) => ({ ...flash(account, requestId), model: 'repriced' });
      expect(await t.holds.authorize(repriced())).toMatchObject({ approved: true, requiredMicro: 9192 });
      await t.ledger.setPrice({ model: 'repriced', inputMicroPerMillion: 2_000_000, outputMicroPerMillion: 3_000_000 });
      const second = repriced();
      expect(await t.holds.authorize(second)).toMatchObject({ approved: true, requiredMicro: 9192 + 2000 + 8192 * 3 });
      const { rows } = await t.db.query<{ amount_micro: string; input_micro_per_million: string }>(
        'SELECT amount_micro::text, input_micro_per_million::text FROM billing.holds WHERE request_id = $1',
        [second.requestId],
      );
      expect(rows).toEqual([{ amount_micro: String(2000 + 8192 * 3), input_micro_per_million: '2000000' }]);
    });

    it('never holds more than the balance under 50 parallel authorizations', async () => {
      const account = await funded(1_000_000);
      const decisions = await Promise.all(Array.from({ length: 50 }, () => t.holds.authorize(flash(account))));
      const approved = decisions.filter((d) => d.approved).length;
      expect(approved).toBe(Math.floor(1_000_000 / FLASH_WORST));
      const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM billing.holds WHERE account_id = $1', [account]);
      expect(rows[0].n).toBe(approved);
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000, heldMicro: approved * FLASH_WORST });
    });
  });

  describe('Settle', () => {
    it('charges the real usage and releases the rest of the hold', async () => {
      const account = await funded(1_000_000);
      const request = flash(account);
      await t.holds.authorize(request);
      const result = await t.holds.settle({
        requestId: request.requestId,
        promptTokens: 900,
        completionTokens: 501,
        usageEstimated: true,
      });
      expect(result).toEqual({ chargedMicro: 900 + 2004, balanceMicro: 1_000_000 - 2904 });
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000 - 2904, heldMicro: 0 });
      const { rows } = await t.db.query(
        'SELECT paid, usage_estimated, prompt_tokens::int, completion_tokens::int FROM billing.ledger WHERE request_id = $1',
        [request.requestId],
      );
      expect(rows).toEqual([{ paid: true, usage_estimated: true, prompt_tokens: 900, completion_tokens: 501 }]);
    });

    it('charges at the prices of the hold, not a price set afterwards', async () => {
      await t.ledger.setPrice({ model: 'repriced', inputMicroPerMillion: 1_000_000, outputMicroPerMillion: 1_000_000 });
      const account = await funded(1_000_000);
      const request = { ...flash(account), model: 'repriced' };
      await t.holds.authorize(request);
      await t.ledger.setPrice({ model: 'repriced', inputMicroPerMillion: 9_000_000, outputMicroPerMillion: 9_000_000 });
      expect(
        (await t.holds.settle({ requestId: request.requestId, promptTokens: 100, completionTokens: 100, usageEstimated: false }))
          .chargedMicro,
      ).toBe(200);
    });

    it('caps the charge at the hold when the prompt was underestimated', async () => {
      const account = await funded(100);
      const request = { ...flash(account), promptTokens: 10, maxTokens: 10 }; // worst case 50
      expect((await t.holds.authorize(request)).approved).toBe(true);
      const result = await t.holds.settle({
        requestId: request.requestId,
        promptTokens: 5000,
        completionTokens: 10,
        usageEstimated: false,
      });
      expect(result).toEqual({ chargedMicro: 50, balanceMicro: 50 });
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 50, heldMicro: 0 });
    });

    it('charges once when settled twice, one after the other or at the same time', async () => {
      const account = await funded(1_000_000);
      const [a, b] = [flash(account), flash(account)];
      await Promise.all([t.holds.authorize(a), t.holds.authorize(b)]);
      const usage = { promptTokens: 1000, completionTokens: 1000, usageEstimated: false };
      const first = await t.holds.settle({ requestId: a.requestId, ...usage });
      expect(await t.holds.settle({ requestId: a.requestId, ...usage, completionTokens: 8000 })).toEqual(first);

      const concurrent = await Promise.all(Array.from({ length: 10 }, () => t.holds.settle({ requestId: b.requestId, ...usage })));
      expect(new Set(concurrent.map((r) => r.chargedMicro))).toEqual(new Set([5000]));
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000 - 10_000, heldMicro: 0 });
      expect(await ledgerSum(account)).toBe(10_000);
    });

    it('settles many requests of several accounts started at once, each exactly once, with the same id twice and an unknown one among them', async () => {
      const accounts = [await funded(1_000_000), await funded(1_000_000), await funded(1_000_000)];
      const requests = accounts.flatMap((account) => [flash(account), flash(account), flash(account)]);
      await Promise.all(requests.map((r) => t.holds.authorize(r)));
      const usage = { promptTokens: 1000, completionTokens: 1000, usageEstimated: false };
      const settles = [...requests.map((r) => r.requestId), requests[0].requestId, 'never-held'].map((requestId) =>
        t.holds.settle({ requestId, ...usage }).then(
          (r) => r.chargedMicro,
          (err: unknown) => grpcCodeOf(err),
        ),
      );
      expect(await Promise.all(settles)).toEqual([...Array(10).fill(5000), status.NOT_FOUND]);
      for (const account of accounts) {
        expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000 - 15_000, heldMicro: 0 });
        expect(await ledgerSum(account)).toBe(15_000);
      }
    });

    it('answers NOT_FOUND for a request id that was never authorized', async () => {
      expect(await codeOf(t.holds.settle({ requestId: 'never', promptTokens: 1, completionTokens: 1, usageEstimated: false }))).toBe(
        status.NOT_FOUND,
      );
    });

    it('keeps balance = start - sum of the ledger after many authorize and settle rounds', async () => {
      const start = 2_000_000;
      const account = await funded(start);
      const rounds = Array.from({ length: 80 }, (_, i) => ({
        requestId: newRequest(),
        accountId: account,
        model: i % 3 === 0 ? 'vendor-v4-pro' : i % 3 === 1 ? 'vendor-v4-flash' : 'odd',
        promptTokens: 17 * i + 3,
        maxTokens: 1 + ((i * 997) % 4096),
      }));
      const decisions = await Promise.all(rounds.map((r) => t.holds.authorize(r)));
      await Promise.all(
        rounds.map((r, i) =>
          decisions[i].approved
            ? t.holds.settle({
                requestId: r.requestId,
                promptTokens: r.promptTokens + (i % 5),
                completionTokens: (r.maxTokens * i) % (r.maxTokens + 1),
                usageEstimated: i % 2 === 0,
              })
            : Promise.resolve(),
        ),
      );
      expect(decisions.some((d) => d.approved)).toBe(true);
      const charged = await ledgerSum(account);
      expect(charged).toBeGreaterThan(0);
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: start - charged, heldMicro: 0 });
    });
  });

  describe('ReleaseHold', () => {
    it('gives the whole hold back, charges nothing, writes no ledger row, and is a no-op the second time', async () => {
      const account = await funded(1_000_000);
      const request = flash(account);
      expect((await t.holds.authorize(request)).approved).toBe(true);
      expect(await t.holds.releaseHold(request.requestId)).toBe(true);
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000, heldMicro: 0 });
      expect(await ledgerSum(account)).toBe(0);
      expect(await t.holds.releaseHold(request.requestId)).toBe(false);
      expect(
        await codeOf(t.holds.settle({ requestId: request.requestId, promptTokens: 1, completionTokens: 1, usageEstimated: false })),
      ).toBe(status.NOT_FOUND);
    });

    it('does not touch a request that was already settled', async () => {
      const account = await funded(1_000_000);
      const request = flash(account);
      await t.holds.authorize(request);
      await t.holds.settle({ requestId: request.requestId, promptTokens: 1000, completionTokens: 1000, usageEstimated: false });
      expect(await t.holds.releaseHold(request.requestId)).toBe(false);
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 1_000_000 - 5000, heldMicro: 0 });
    });
  });

  describe('balance changes beside holds', () => {
    it('never takes away what is held', async () => {
      const busy = await funded(FLASH_WORST + 10);
      await t.holds.authorize(flash(busy));
      expect(await codeOf(t.ledger.addBalance(busy, -11))).toBe(status.FAILED_PRECONDITION);
      expect(await t.ledger.addBalance(busy, -10)).toBe(FLASH_WORST);
    });
  });
});
