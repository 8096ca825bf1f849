import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { declaredFlags } from './command-flags';
import { COMMANDS, LOCAL_COMMANDS } from './command-table';

const OPERATOR_CLI = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'operator-cli.md'), 'utf8');
const entries = Object.entries({ ...COMMANDS, ...LOCAL_COMMANDS });

describe('the command table', () => {
  it.each(entries)('%s: its usage line names it and declares its flags in the one way', (name, { usage }) => {
    expect(usage === name || usage.startsWith(`${name} `)).toBe(true);
    expect(() => declaredFlags(usage)).not.toThrow();
  });

  it.each(entries)('%s: docs/operator-cli.md shows its usage line as it is', (_name, { usage }) => {
    expect(OPERATOR_CLI).toContain(`| \`${usage}\``);
  });
});
