import { readFileSync } from 'fs';
import { join } from 'path';
import { BILLING_MIGRATIONS } from './billing-migrations';

/** Each function's migrations in id order, from the CREATE FUNCTION statements; a DROP without a later CREATE leaves none. */
function definitionsByFunction(): Map<string, string[]> {
  const defined = new Map<string, string[]>();
  for (const { id, sql } of BILLING_MIGRATIONS) {
    for (const [, verb, name] of sql.matchAll(/\b(CREATE(?: OR REPLACE)? FUNCTION|DROP FUNCTION)\s+billing\.(\w+)/g)) {
      const ids = defined.get(name) ?? [];
      defined.set(name, verb.startsWith('CREATE') ? [...ids, id] : ids);
    }
  }
  return defined;
}

/** The rows of sql-functions.md: function name, the file of its current definition, the ids before it. */
function listed(): Map<string, { current: string; before: string[] }> {
  const text = readFileSync(join(__dirname, 'sql-functions.md'), 'utf8');
  const rows = [...text.matchAll(/^\|\s*`billing\.(\w+)`\s*\|\s*\[([\w-]+)\.ts\]\(\2\.ts\)\s*\|([^|]*)\|\s*$/gm)];
  return new Map(
    rows.map(([, name, file, before]) => [
      name,
      {
        current: file,
        before: before
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      },
    ]),
  );
}

describe('sql-functions.md', () => {
  it('names, for every SQL function of the billing schema, the migration that defines it now and those that did before', () => {
    const expected = new Map(
      [...definitionsByFunction()]
        .filter(([, ids]) => ids.length > 0)
        .map(([name, ids]) => [name, { current: ids[ids.length - 1], before: ids.slice(0, -1).map((id) => id.slice(0, 3)) }]),
    );
    expect(Object.fromEntries(listed())).toEqual(Object.fromEntries(expected));
  });
});
