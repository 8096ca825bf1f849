import { hashPassword, passwordProblem, verifyPassword } from './password-hash';

describe('hashPassword and verifyPassword', () => {
  it('makes a hash that verifies its own password and no other', async () => {
    const stored = await hashPassword('correct horse battery');
    await expect(verifyPassword('correct horse battery', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', stored)).resolves.toBe(false);
    await expect(verifyPassword('', stored)).resolves.toBe(false);
  });

  it('stores scrypt with N=2^15, r=8, p=1, a 16-byte salt and a 32-byte hash, in base64url', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored.startsWith('scrypt$32768$8$1$')).toBe(true);
    const [, , , , salt, hash] = stored.split('$');
    expect(salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('salts every hash afresh, so one password hashed twice gives two different values', async () => {
    const [first, second] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(first).not.toBe(second);
    await expect(verifyPassword('same password', second)).resolves.toBe(true);
  });

  it('verifies with the parameters written in the stored value, not the current defaults', async () => {
    const stored = await hashPassword('correct horse battery');
    const [, , , , salt, hash] = stored.split('$');
    // Same salt and hash under different parameters is a different (wrong) hash.
    await expect(verifyPassword('correct horse battery', `scrypt$16384$8$1$${salt}$${hash}`)).resolves.toBe(false);
  });

  it('answers false, never throws, for a malformed stored value', async () => {
    const stored = await hashPassword('correct horse battery');
    const [, n, r, p, salt, hash] = stored.split('$');
    const malformed = [
      '',
      'plain text',
      `bcrypt$${n}$${r}$${p}$${salt}$${hash}`,
      `scrypt$${n}$${r}$${p}$${salt}`,
      `scrypt$${n}$${r}$${p}$${salt}$${hash}$extra`,
      `scrypt$1000$${r}$${p}$${salt}$${hash}`,
      `scrypt$0$${r}$${p}$${salt}$${hash}`,
      `scrypt$-32768$${r}$${p}$${salt}$${hash}`,
      `scrypt$${n}$x$${p}$${salt}$${hash}`,
      `scrypt$1073741824$${r}$${p}$${salt}$${hash}`,
      `scrypt$${n}$${r}$${p}$$${hash}`,
      `scrypt$${n}$${r}$${p}$${salt}$`,
      `scrypt$${n}$${r}$${p}$${salt}$not+base64/url==`,
    ];
    for (const value of malformed) {
      await expect(verifyPassword('correct horse battery', value)).resolves.toBe(false);
    }
  });
});

describe('passwordProblem', () => {
  it('refuses a password shorter than 10 characters', () => {
    expect(passwordProblem('')).toEqual(expect.any(String));
    expect(passwordProblem('123456789')).toMatch(/at least 10/);
  });

  it('accepts from 10 to 256 characters', () => {
    expect(passwordProblem('1234567890')).toBeUndefined();
    expect(passwordProblem('x'.repeat(256))).toBeUndefined();
  });

  it('refuses a password longer than 256 characters', () => {
    expect(passwordProblem('x'.repeat(257))).toMatch(/at most 256/);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(passwordProblem('🔑'.repeat(9))).toMatch(/at least 10/);
    expect(passwordProblem('🔑'.repeat(10))).toBeUndefined();
  });
});
