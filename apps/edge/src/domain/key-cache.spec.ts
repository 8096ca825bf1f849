import { authV1 } from '@gw/contracts';
import { KeyCache } from './key-cache';

const owner = (keyId: string, accountId: string, suspension?: authV1.Suspension): authV1.AuthenticateResponse => ({
  found: true,
  keyId,
  accountId,
  suspension,
  models: [],
});

describe('KeyCache', () => {
  let now = 1_000_000;
  const trusted = () => {
    const cache = new KeyCache(100, () => now);
    cache.trust();
    return cache;
  };

  it('answers from what it kept while trusted, and nothing once distrusted', () => {
    const cache = trusted();
    cache.keep('sha-a', owner('key_a', 'acct_1'), cache.ticket());
    expect(cache.get('sha-a')?.keyId).toBe('key_a');
    cache.distrust();
    expect(cache.get('sha-a')).toBeUndefined();
    cache.keep('sha-a', owner('key_a', 'acct_1'), cache.ticket());
    expect(cache.size).toBe(0);
  });

  it('keeps nothing before the stream is live, nor an answer asked for before it became live', () => {
    const cache = new KeyCache(100, () => now);
    const early = cache.ticket();
    cache.keep('sha-a', owner('key_a', 'acct_1'), early);
    cache.trust();
    cache.keep('sha-a', owner('key_a', 'acct_1'), early);
    expect(cache.get('sha-a')).toBeUndefined();
  });

  it('never keeps an answer read before a change that arrived while it was on its way', () => {
    const cache = trusted();
    const ticket = cache.ticket();
    cache.dropKey('key_other');
    cache.keep('sha-a', owner('key_a', 'acct_1'), ticket);
    expect(cache.get('sha-a')).toBeUndefined();
  });

  it('drops a revoked key, and every key of a changed account', () => {
    const cache = trusted();
    cache.keep('sha-a', owner('key_a', 'acct_1'), cache.ticket());
    cache.keep('sha-b', owner('key_b', 'acct_1'), cache.ticket());
    cache.keep('sha-c', owner('key_c', 'acct_2'), cache.ticket());
    cache.dropKey('key_a');
    expect([cache.get('sha-a'), cache.get('sha-b')?.keyId]).toEqual([undefined, 'key_b']);
    cache.dropAccount('acct_1');
    expect([cache.get('sha-b'), cache.get('sha-c')?.keyId]).toEqual([undefined, 'key_c']);
  });

  it('keeps only keys that were found, and stops using a suspension once it has ended', () => {
    const cache = trusted();
    cache.keep('sha-x', { found: false, keyId: '', accountId: '', models: [] }, cache.ticket());
    expect(cache.size).toBe(0);
    const until = new Date(now + 60_000).toISOString();
    cache.keep('sha-s', owner('key_s', 'acct_s', { until, reason: '', whatsapp: '+1' }), cache.ticket());
    expect(cache.get('sha-s')?.suspension?.until).toBe(until);
    now += 60_000;
    expect(cache.get('sha-s')).toBeUndefined();
  });

  it('holds at most its maximum, letting the oldest go', () => {
    const cache = new KeyCache(2, () => now);
    cache.trust();
    for (const k of ['a', 'b', 'c']) cache.keep(`sha-${k}`, owner(`key_${k}`, 'acct'), cache.ticket());
    expect([cache.get('sha-a'), cache.get('sha-b')?.keyId, cache.get('sha-c')?.keyId]).toEqual([undefined, 'key_b', 'key_c']);
  });
});
