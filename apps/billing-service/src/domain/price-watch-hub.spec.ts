import { PricesMessage, PriceWatchHub } from './price-watch-hub';

const flash = { model: 'vendor-v4-flash', inputMicroPerMillion: 1, outputMicroPerMillion: 4 };
const pro = { model: 'vendor-v4-pro', inputMicroPerMillion: 4, outputMicroPerMillion: 16 };

function watcher() {
  const sent: PricesMessage[] = [];
  const ended: string[] = [];
  return { sent, ended, send: (m: PricesMessage) => sent.push(m), end: (reason: string) => ended.push(reason) };
}

describe('PriceWatchHub', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('accepts no watcher before it has a table, nor after the feed was lost', () => {
    const hub = new PriceWatchHub(1000);
    expect(() => hub.add(watcher())).toThrow(expect.objectContaining({ kind: 'unavailable' }));
    hub.load({ version: 3, prices: [pro, flash] });
    const w = watcher();
    hub.add(w);
    expect(w.sent).toEqual([{ version: 3, full: true, prices: [flash, pro] }]);
    hub.endAll('feed lost');
    expect(w.ended).toEqual(['feed lost']);
    expect(() => hub.add(watcher())).toThrow(expect.objectContaining({ kind: 'unavailable' }));
  });

  it('resolves a change once every watcher acknowledged it, a watcher that opened meanwhile included', async () => {
    const hub = new PriceWatchHub(1000);
    hub.load({ version: 1, prices: [flash] });
    const early = hub.add(watcher());
    let resolved = false;
    const change = hub.deliver({ version: 2, price: pro }).then(() => (resolved = true));
    const w = watcher();
    const late = hub.add(w);
    expect(w.sent).toEqual([{ version: 2, full: true, prices: [flash, pro] }]);
    early.acknowledge(2);
    await Promise.resolve();
    expect(resolved).toBe(false);
    late.acknowledge(2);
    await change;
    expect(resolved).toBe(true);
  });

  it('refuses an acknowledgement of a version not sent, and cuts a watcher silent past the timeout', async () => {
    const hub = new PriceWatchHub(1000);
    hub.load({ version: 1, prices: [flash] });
    const [quiet, talking] = [watcher(), watcher()];
    const watches = [hub.add(quiet), hub.add(talking)];
    expect(() => watches[1].acknowledge(2)).toThrow(expect.objectContaining({ kind: 'invalid-argument' }));
    const change = hub.deliver({ version: 2, price: pro });
    watches[1].acknowledge(2);
    jest.advanceTimersByTime(999);
    expect(quiet.ended).toEqual([]);
    jest.advanceTimersByTime(1);
    await change;
    expect(quiet.ended).toEqual([expect.stringMatching(/version 2 not acknowledged within 1000 ms/)]);
    expect([talking.ended, hub.size]).toEqual([[], 1]);
  });
});
