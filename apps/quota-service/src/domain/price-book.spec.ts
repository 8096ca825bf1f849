import { PriceBook } from './price-book';

const flash = { model: 'vendor-v4-flash', inputMicroPerMillion: 1, outputMicroPerMillion: 4 };
const pro = { model: 'vendor-v4-pro', inputMicroPerMillion: 4, outputMicroPerMillion: 16 };

describe('PriceBook', () => {
  it('has no prices until a whole table came: UNAVAILABLE, and a change alone is refused', () => {
    const book = new PriceBook();
    expect(() => book.priceOf('vendor-v4-flash')).toThrow(expect.objectContaining({ kind: 'unavailable' }));
    expect(book.apply({ version: 3, full: false, prices: [flash] })).toBe(false);
    expect(book.version).toBeUndefined();
  });

  it('replaces everything with a whole table, updates with a change, and forgets all when dropped', () => {
    const book = new PriceBook();
    expect(book.apply({ version: 1, full: true, prices: [flash, pro] })).toBe(true);
    expect(book.apply({ version: 2, full: false, prices: [{ ...flash, outputMicroPerMillion: 8 }] })).toBe(true);
    expect(book.priceOf('vendor-v4-flash')).toEqual({ inputMicroPerMillion: 1, outputMicroPerMillion: 8 });
    expect(book.apply({ version: 3, full: true, prices: [flash] })).toBe(true);
    expect(() => book.priceOf('vendor-v4-pro')).toThrow(expect.objectContaining({ kind: 'failed-precondition' }));
    expect(book.version).toBe(3);
    book.drop();
    expect(() => book.priceOf('vendor-v4-flash')).toThrow(expect.objectContaining({ kind: 'unavailable' }));
  });

  it('waits for a table, asking the watch to reopen, up to a time; says UNIMPLEMENTED when billing-service does not serve the watch', async () => {
    const book = new PriceBook();
    let wanted = 0;
    book.onWanted = () => void wanted++;
    const started = Date.now();
    await book.wait(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    const waiting = book.wait(5000);
    book.apply({ version: 1, full: true, prices: [flash] });
    await waiting;
    expect(wanted).toBe(2);
    await book.wait(5000);
    expect(wanted).toBe(2);
    book.drop();
    const unsupported = book.wait(5000);
    book.drop('unsupported');
    await unsupported;
    expect(() => book.priceOf('vendor-v4-flash')).toThrow(expect.objectContaining({ kind: 'unimplemented' }));
  });
});
