import { createHash } from 'node:crypto';
import { generateApiKey, sha256Hex } from './api-key';

describe('generateApiKey (docs/api.md#keys)', () => {
  it('is sk-shfr- followed by 40 characters of 0-9a-f, 48 in all', () => {
    const key = generateApiKey();
    expect(key.value).toMatch(/^sk-shfr-[0-9a-f]{40}$/);
    expect(key.value).toHaveLength(48);
  });

  it('keeps the first 12 characters as prefix and the SHA-256 as hash', () => {
    const key = generateApiKey();
    expect(key.prefix).toBe(key.value.slice(0, 12));
    expect(key.sha256).toBe(createHash('sha256').update(key.value).digest('hex'));
    expect(sha256Hex(key.value)).toBe(key.sha256);
  });

  it('never repeats', () => {
    const values = new Set(Array.from({ length: 1000 }, () => generateApiKey().value));
    expect(values.size).toBe(1000);
  });
});
