import { readdirSync } from 'fs';
import { BILLING_MIGRATIONS } from './billing-migrations';

describe('BILLING_MIGRATIONS', () => {
  const ids = BILLING_MIGRATIONS.map((m) => m.id);

  it('lists each migration once, in id order (the order runMigrations applies them)', () => {
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
  });

  it('lists every migration file of this folder, each file holding the migration of its name', () => {
    const files = readdirSync(__dirname)
      .filter((file) => /^\d{3}-[a-z0-9-]+\.ts$/.test(file))
      .map((file) => file.slice(0, -'.ts'.length));
    expect(ids).toEqual(files.sort());
  });
});
