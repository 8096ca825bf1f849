import { createHash } from 'node:crypto';
import { newSecretToken, sameSecret, sha256Hex } from './secret-token';

describe('newSecretToken', () => {
  it('makes 43-character base64url tokens, all different over 1,000 draws', () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const { token } = newSecretToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      tokens.add(token);
    }
    expect(tokens.size).toBe(1000);
  });

  it('gives the SHA-256 of the token, which is what sha256Hex computes from it', () => {
    const { token, sha256 } = newSecretToken();
    expect(sha256).toBe(sha256Hex(token));
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('sha256Hex', () => {
  it('is the lower-case hex SHA-256 of the UTF-8 text', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe(createHash('sha256').update(Buffer.from('é', 'utf8')).digest('hex'));
  });
});

describe('sameSecret', () => {
  const { token } = newSecretToken();

  it('is true only for the same text', () => {
    expect(sameSecret(token, `${token}`)).toBe(true);
    expect(sameSecret(token, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'))).toBe(false);
  });

  it('is false for a different length, including empty', () => {
    expect(sameSecret(token, token.slice(1))).toBe(false);
    expect(sameSecret(token, `${token}x`)).toBe(false);
    expect(sameSecret(token, '')).toBe(false);
  });

  it('is false for equal UTF-16 lengths with different byte lengths, without throwing', () => {
    expect(sameSecret('ab', 'aé')).toBe(false);
  });

  it('is false for anything that is not a string', () => {
    for (const other of [undefined, null, 42, [token], { token }, Buffer.from(token)]) {
      expect(sameSecret(token, other)).toBe(false);
    }
  });
});
