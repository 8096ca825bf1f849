/** Markup that is already safe: made by `html`, never from text a person typed. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe to stand in HTML, attributes included. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

type Value = SafeHtml | string | number | undefined | null | false | readonly (SafeHtml | string)[];

const render = (value: Value): string => {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map((v) => render(v)).join('');
  return escapeHtml(String(value));
};

/** A template of markup whose every interpolated value is escaped, except markup made by `html`. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''));
}
