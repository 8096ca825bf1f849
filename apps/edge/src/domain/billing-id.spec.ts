import { newBillingId } from './billing-id';

describe('newBillingId', () => {
  it('is a UUIDv7 whose first 48 bits are the time given, in milliseconds', () => {
    const at = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
    const id = newBillingId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it('differs in its random part for ids of the same millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newBillingId(1_800_000_000_000)));
    expect(ids.size).toBe(10_000);
  });
});
