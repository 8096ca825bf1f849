import { status } from '@grpc/grpc-js';
import { ItemResult } from '@gw/service-kit';
import { lineExtensionBatchSize } from '../quota-metrics';
import { BatchLender, LineAsk, LineExtension } from './credit-lender';
import { LineExtensionBatcher } from './line-extension-batcher';

/** A line answered for `ask`: its granted total tells which ask it answers (the account's number plus the need). */
const lineFor = (ask: LineAsk): LineExtension => ({
  grantedTotalMicro: Number(ask.accountId.replace('acct_', '')) * 1000 + ask.needMicro,
  balanceMicro: 0,
  chargedTotalMicro: 0,
  returnedTotalMicro: ask.returnedTotalMicro,
  heldOutsideMicro: 0,
});

/** billing-service whose calls stay on the wire until the test ends them, one by one. */
class HeldBilling implements BatchLender {
  calls: { asks: LineAsk[]; end: (answer?: ItemResult<LineExtension>[] | Error) => void }[] = [];

  extendMany(asks: LineAsk[]): Promise<ItemResult<LineExtension>[]> {
    return new Promise((resolve, reject) => {
      this.calls.push({
        asks,
        end: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer ?? asks.map((a) => ({ ok: true, value: lineFor(a) })))),
      });
    });
  }

  accounts(call: number): string[] {
    return this.calls[call].asks.map((a) => a.accountId);
  }
}

const settled = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );
const turn = () => new Promise((resolve) => setImmediate(resolve));
const calls = async () =>
  (await lineExtensionBatchSize.get()).values.find((v) => v.metricName === 'quota_credit_line_batch_size_count')?.value ?? 0;

describe('LineExtensionBatcher', () => {
  let billing: HeldBilling;
  let batcher: LineExtensionBatcher;
  const extend = (n: number, need = 0) =>
    batcher.extend({ accountId: `acct_${n}`, returnedTotalMicro: 0, needMicro: need, grantedTotalMicro: 0, uncoveredMicro: need });

  beforeEach(() => {
    billing = new HeldBilling();
    batcher = new LineExtensionBatcher(billing, 4);
  });

  it('sends an extension at once when no call is on the wire, alone, and the next one alone once it has ended', async () => {
    const first = extend(1);
    expect(billing.calls).toHaveLength(1);
    expect(billing.accounts(0)).toEqual(['acct_1']);
    billing.calls[0].end();
    expect(await first).toMatchObject({ grantedTotalMicro: 1000 });
    await turn();
    const second = extend(2);
    expect(billing.accounts(1)).toEqual(['acct_2']);
    billing.calls[1].end();
    expect(await second).toMatchObject({ grantedTotalMicro: 2000 });
  });

  it('holds those asked while a call is on the wire and sends them together once it ends, each getting its own line, in order', async () => {
    const before = await calls();
    const first = extend(1);
    // An account twice: asked twice, answered twice.
    const waiting = [extend(2), extend(3, 5), extend(2, 7)];
    expect(billing.calls).toHaveLength(1);
    billing.calls[0].end();
    await first;
    await turn();
    expect(billing.calls).toHaveLength(2);
    expect(billing.calls[1].asks).toEqual([
      { accountId: 'acct_2', returnedTotalMicro: 0, needMicro: 0, grantedTotalMicro: 0, uncoveredMicro: 0 },
      { accountId: 'acct_3', returnedTotalMicro: 0, needMicro: 5, grantedTotalMicro: 0, uncoveredMicro: 5 },
      { accountId: 'acct_2', returnedTotalMicro: 0, needMicro: 7, grantedTotalMicro: 0, uncoveredMicro: 7 },
    ]);
    billing.calls[1].end();
    expect((await Promise.all(waiting)).map((l) => l.grantedTotalMicro)).toEqual([2000, 3005, 2007]);
    expect((await calls()) - before).toBe(2);
  });

  it('splits what waits into calls of at most the batch size, sent at once, and sends what came meanwhile after all of them ended', async () => {
    const first = extend(0);
    const waiting = Array.from({ length: 10 }, (_, i) => extend(i + 1));
    billing.calls[0].end();
    await first;
    await turn();
    expect([1, 2, 3].map((c) => billing.accounts(c))).toEqual([
      ['acct_1', 'acct_2', 'acct_3', 'acct_4'],
      ['acct_5', 'acct_6', 'acct_7', 'acct_8'],
      ['acct_9', 'acct_10'],
    ]);
    const later = extend(11);
    billing.calls[1].end();
    billing.calls[3].end();
    await turn();
    expect(billing.calls).toHaveLength(4);
    billing.calls[2].end();
    await turn();
    expect(billing.accounts(4)).toEqual(['acct_11']);
    billing.calls[4].end();
    expect((await Promise.all([...waiting, later])).map((l) => l.grantedTotalMicro)).toEqual(
      Array.from({ length: 11 }, (_, i) => (i + 1) * 1000),
    );
  });

  it('fails each waiter of a failed call with its error, a line refused alone with its own, and serves the next round', async () => {
    const first = settled(extend(1));
    const failing = [settled(extend(2)), settled(extend(3))];
    const unavailable = Object.assign(new Error('billing-service unavailable'), { code: status.UNAVAILABLE });
    billing.calls[0].end(unavailable);
    expect(await first).toEqual({ err: unavailable });
    await turn();
    const mixed = [settled(extend(4)), settled(extend(5))];
    billing.calls[1].end(unavailable);
    expect(await Promise.all(failing)).toEqual([{ err: unavailable }, { err: unavailable }]);
    await turn();
    const refused = Object.assign(new Error('account_id too long'), { code: status.INVALID_ARGUMENT });
    billing.calls[2].end([
      { ok: false, err: refused },
      { ok: true, value: lineFor({ accountId: 'acct_5', returnedTotalMicro: 0, needMicro: 0, grantedTotalMicro: 0, uncoveredMicro: 0 }) },
    ]);
    expect(await Promise.all(mixed)).toEqual([{ err: refused }, { value: expect.objectContaining({ grantedTotalMicro: 5000 }) }]);

    // An answer short of a line fails that line rather than leaving its Admit waiting.
    await turn();
    const alone = extend(6);
    const short = [settled(extend(7)), settled(extend(8))];
    billing.calls[3].end();
    await alone;
    await turn();
    billing.calls[4].end([
      { ok: true, value: lineFor({ accountId: 'acct_7', returnedTotalMicro: 0, needMicro: 0, grantedTotalMicro: 0, uncoveredMicro: 0 }) },
    ]);
    expect(await Promise.all(short)).toEqual([{ value: expect.objectContaining({ grantedTotalMicro: 7000 }) }, { err: expect.any(Error) }]);
  });
});
