import { Setting } from '@gw/service-kit';
import { APP_SETTINGS } from './apps';

const apps = Object.entries(APP_SETTINGS);
/** What a variable is read as: its kind, default and least value, without its description. */
const ruleOf = (entry: Setting) => ({ ...entry, description: undefined });

describe('APP_SETTINGS', () => {
  it.each(apps)('%s: its tables agree on every variable they share', (_app, tables) => {
    const seen = new Map<string, Setting>();
    for (const table of tables) {
      for (const [name, entry] of Object.entries(table)) {
        expect({ name, ...ruleOf(entry) }).toEqual({ name, ...ruleOf(seen.get(name) ?? entry) });
        seen.set(name, entry);
      }
    }
  });

  it.each(apps)('%s: names its variables in capitals and describes each in one line', (_app, tables) => {
    for (const [name, entry] of tables.flatMap((table) => Object.entries(table))) {
      expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect({ name, description: entry.description }).toEqual({ name, description: expect.stringMatching(/^[^\n|]+$/) });
    }
  });
});
