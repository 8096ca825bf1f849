import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  APP_SETTINGS,
  AUTH_SETTINGS,
  BILLING_SETTINGS,
  CONSOLE_SETTINGS,
  CTL_SETTINGS,
  EDGE_SETTINGS,
  NOTIFIER_SETTINGS,
  PROVIDER_SIM_SETTINGS,
  QUOTA_SETTINGS,
} from '@gw/app-settings';
import { GRPC_SECURITY_SETTINGS, Setting, SettingsTable } from '@gw/service-kit';

const DOC = join(__dirname, '..', '..', '..', 'docs', 'configuration.md');

/** The settings table each `## section` of docs/configuration.md shows. */
const SECTIONS: Record<string, SettingsTable> = {
  'gRPC transport security': GRPC_SECURITY_SETTINGS,
  edge: EDGE_SETTINGS,
  'auth-service': AUTH_SETTINGS,
  'quota-service': QUOTA_SETTINGS,
  'billing-service': BILLING_SETTINGS,
  'provider-sim': PROVIDER_SIM_SETTINGS,
  console: CONSOLE_SETTINGS,
  notifier: NOTIFIER_SETTINGS,
  ctl: CTL_SETTINGS,
};

interface DocRow {
  name: string;
  fallback: string;
  meaning: string;
}

/** `| \`NAME\` | default | meaning |`: one variable, its default as the doc spells it, what it sets. */
const ROW = /^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \| (.*) \|$/;
/** A table's header and separator rows. */
const FRAME = /^\| variable \| default \| meaning \|$|^\|---\|/;

/** The rows of the doc's tables by the `## ` heading above them, and the table lines that are no row of one variable. */
function readDoc(markdown: string): { sections: Map<string, DocRow[]>; unreadable: string[] } {
  const sections = new Map<string, DocRow[]>();
  const unreadable: string[] = [];
  let rows: DocRow[] | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) sections.set(heading[1], (rows = []));
    if (!line.startsWith('|') || FRAME.test(line)) continue;
    const row = ROW.exec(line);
    if (row && rows) rows.push({ name: row[1], fallback: row[2], meaning: row[3] });
    else unreadable.push(line);
  }
  for (const [heading, found] of sections) if (found.length === 0) sections.delete(heading);
  return { sections, unreadable };
}

/** A setting's default as the doc spells it: the value in backticks, or _unset_ for one without. */
const documented = (entry: Setting) => (entry.kind === 'optional' ? '_unset_' : `\`${entry.default}\``);

describe('docs/configuration.md', () => {
  const { sections, unreadable } = readDoc(readFileSync(DOC, 'utf8'));

  it('holds only tables of one variable per row, each under the section of a settings table', () => {
    expect(unreadable).toEqual([]);
    expect([...sections.keys()].sort()).toEqual(Object.keys(SECTIONS).sort());
  });

  it("shows every table an app reads (APP_SETTINGS), so that no app's variables go undocumented", () => {
    const shown = new Set(Object.values(SECTIONS));
    const apps = Object.entries(APP_SETTINGS).flatMap(([app, tables]) => tables.map((table) => ({ app, shown: shown.has(table) })));
    expect(apps.filter((a) => !a.shown)).toEqual([]);
  });

  it.each(Object.entries(SECTIONS))('%s: names each variable of its settings table once, with its default', (section, table) => {
    const rows = sections.get(section) ?? [];
    const names = rows.map((r) => r.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    const doc = Object.fromEntries(rows.map((r) => [r.name, r.fallback]));
    const settings = Object.fromEntries(Object.entries(table).map(([name, entry]) => [name, documented(entry)]));
    expect(doc).toEqual(settings);
  });

  it.each(Object.entries(SECTIONS))('%s: states the least value of every variable that has one', (section, table) => {
    const meanings = new Map((sections.get(section) ?? []).map((r) => [r.name, r.meaning]));
    const unstated = Object.entries(table)
      .filter(
        ([name, entry]) => entry.kind === 'int' && entry.min !== undefined && !meanings.get(name)?.includes(`(at least ${entry.min})`),
      )
      .map(([name]) => name);
    expect(unstated).toEqual([]);
  });
});
