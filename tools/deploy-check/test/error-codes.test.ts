import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ERROR_CODES, ErrorCode, errorTypeForStatus, OTHER_STATUSES } from '@gw/errors';

/**
 * The error codes are written in three places: the code table (libs/errors/src/error-codes.ts),
 * docs/api.md#every-error-code and docs/openapi.yaml. Each code, with each status it comes with,
 * must be in all three, and nothing else.
 */
const ROOT = join(__dirname, '..', '..', '..');
const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
const statusesOf = (code: ErrorCode) => [ERROR_CODES[code], ...(OTHER_STATUSES[code] ?? [])].sort();

/** The rows of the Markdown table under `heading` in docs/api.md, as their cells. */
function apiTable(heading: string): string[][] {
  const text = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  expect(start).toBeGreaterThan(-1);
  const section = text.slice(start + heading.length + 2).split(/\n#/)[0];
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

/** The code a cell names when it is one code and nothing else (`INVALID_JSON`), not "the provider's". */
const codeOfCell = (cell: string) => /^`([A-Za-z_]+)`$/.exec(cell)?.[1];
const statusesOfCell = (cell: string) => [...cell.matchAll(/\b[1-5]\d\d\b/g)].map((m) => Number(m[0]));

describe('the error codes: libs/errors, docs/api.md and docs/openapi.yaml agree', () => {
  const apiRows = apiTable('### Every error code').flatMap(([status, cell]) => {
    const code = codeOfCell(cell);
    return code === undefined ? [] : [{ code, statuses: statusesOfCell(status) }];
  });

  it("api.md's table has every code of the code table, and no other", () => {
    expect([...new Set(apiRows.map((r) => r.code))].sort()).toEqual([...CODES].sort());
  });

  it('api.md gives each code exactly the statuses the code table gives it', () => {
    for (const code of CODES) {
      const documented = [...new Set(apiRows.filter((r) => r.code === code).flatMap((r) => r.statuses))].sort();
      expect({ code, statuses: documented }).toEqual({ code, statuses: statusesOf(code) });
    }
  });

  it("api.md's status-to-type table is errorTypeForStatus", () => {
    const rows = apiTable('### Status and type').filter(([, type]) => codeOfCell(type) !== undefined);
    expect(rows.length).toBeGreaterThan(0);
    for (const [statuses, type] of rows) {
      for (const status of statusesOfCell(statuses))
        expect({ status, type: errorTypeForStatus(status) }).toEqual({ status, type: codeOfCell(type) });
    }
  });

  type Response = { description?: string; $ref?: string };
  const openapi = parse(readFileSync(join(ROOT, 'docs', 'openapi.yaml'), 'utf8')) as {
    components: { schemas: { ErrorObject: { properties: { code: { examples: string[] } } } }; responses: Record<string, Response> };
    paths: Record<string, Record<string, { responses?: Record<string, Response> }>>;
  };
  /** Each status an operation answers, with the description it has or takes from its $ref. */
  const openapiResponses = Object.values(openapi.paths).flatMap((item) =>
    Object.values(item).flatMap((operation) =>
      Object.entries(operation.responses ?? {}).map(([status, response]) => ({
        status: Number(status),
        description:
          response.description ??
          openapi.components.responses[String(response.$ref).replace('#/components/responses/', '')]?.description ??
          '',
      })),
    ),
  );
  const named = (description: string, code: string) => new RegExp(`(?<![A-Za-z_])${code}(?![A-Za-z_])`).test(description);

  it("openapi.yaml's error object lists every code of the code table, and no other", () => {
    expect([...openapi.components.schemas.ErrorObject.properties.code.examples].sort()).toEqual([...CODES].sort());
  });

  it('openapi.yaml names a code only under a status the code table gives it', () => {
    for (const { status, description } of openapiResponses) {
      for (const code of CODES.filter((c) => named(description, c))) {
        expect({ code, status, allowed: statusesOf(code).includes(status) }).toEqual({ code, status, allowed: true });
      }
    }
  });

  it('openapi.yaml names each code under each of its statuses, but NOT_FOUND (a path it does not describe)', () => {
    for (const code of CODES.filter((c) => c !== 'NOT_FOUND')) {
      for (const status of statusesOf(code)) {
        const found = openapiResponses.some((r) => r.status === status && named(r.description, code));
        expect({ code, status, found }).toEqual({ code, status, found: true });
      }
    }
  });
});
