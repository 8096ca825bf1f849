import { DomainError } from '@gw/errors';

/**
 * The longest account or key name (docs/api.md#keys: 64 characters), counted as a person counts
 * characters: grapheme clusters, so an emoji, a flag or a letter with its accents is one.
 */
export const MAX_NAME_CHARACTERS = 64;

const CONTROL_CHARACTER = /\p{Cc}/u;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** How many characters a person sees in `text`. */
export function characterCount(text: string): number {
  return Array.from(graphemes.segment(text)).length;
}

/**
 * A name as it is kept, from what its creator typed (the operator's CLI or the console):
 * trimmed, '' when empty. Refused with INVALID_ARGUMENT when longer than MAX_NAME_CHARACTERS or
 * holding a control character (newlines, tabs, escapes, NUL...), which would break the lines
 * and tables the name is shown in, and which Postgres cannot store (NUL).
 */
function displayName(requested: string, what: string): string {
  if (CONTROL_CHARACTER.test(requested)) throw new DomainError('invalid-argument', `${what} cannot hold control characters`);
  const name = requested.trim();
  if (characterCount(name) > MAX_NAME_CHARACTERS)
    throw new DomainError('invalid-argument', `${what} is at most ${MAX_NAME_CHARACTERS} characters`);
  return name;
}

/** An account's name (displayName's rule), `Account` when none is given. */
export const accountName = (requested: string): string => displayName(requested, 'an account name') || 'Account';

/** A key's name (displayName's rule), '' when none is given: the caller names it after its prefix. */
export const keyName = (requested: string): string => displayName(requested, 'a key name');
