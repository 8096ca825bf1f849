/** A field as RFC 4180 writes it: quoted (its quotes doubled) when it holds a quote, a comma or a line break. */
export const csvField = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** Fields as one CSV line, without its line end. */
export const csvLine = (fields: readonly string[]): string => fields.map(csvField).join(',');

const FIELD = /"((?:[^"]|"")*)"|([^,"]*)/y;

/**
 * The fields of one CSV line as csvLine writes it (no line break inside a field); undefined for a
 * line that is not such a line (a quote inside an unquoted field, text after a closing quote).
 */
export function splitCsvLine(line: string): string[] | undefined {
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    FIELD.lastIndex = at;
    const match = FIELD.exec(line);
    if (!match) return undefined;
    fields.push(match[1] !== undefined ? match[1].replaceAll('""', '"') : match[2]);
    at = FIELD.lastIndex;
    if (at === line.length) return fields;
    if (line[at] !== ',') return undefined;
    at++;
    if (at === line.length) return [...fields, ''];
  }
}
