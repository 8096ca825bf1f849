import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuditKey } from './audit-key';

describe('loadAuditKey', () => {
  const file = () => join(mkdtempSync(join(tmpdir(), 'audit-key-')), 'data', 'audit.key');

  it("takes AUDIT_KEY's bytes, refusing one under 32 characters", () => {
    expect(loadAuditKey({ value: 'k'.repeat(32), file: file() })).toEqual({ key: Buffer.from('k'.repeat(32)), from: 'AUDIT_KEY' });
    expect(() => loadAuditKey({ value: 'short', file: file() })).toThrow('AUDIT_KEY must be at least 32 characters');
  });

  it('unset, makes a random key in the file once, readable by its owner only, and reads it back on the next start', () => {
    const path = file();
    const first = loadAuditKey({ value: undefined, file: path });
    expect(first.from).toBe('file');
    expect(readFileSync(path, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadAuditKey({ value: undefined, file: path }).key).toEqual(first.key);
    expect(loadAuditKey({ value: undefined, file: file() }).key).not.toEqual(first.key);
  });
});
