import { countTokens } from 'gpt-tokenizer';

/** Characters counted exactly per request; beyond them the count is extrapolated (bounded CPU). */
export const EXACT_CHAR_BUDGET = 32 * 1024;
const SEGMENT = 2048;
/** Byte-pair merging is quadratic on a long run with no space: such runs are counted in short pieces. */
const LONG_RUN = /\S{256}/;
const PIECES = /\s+|\S{1,64}/g;
/** Window size of the samples a text past the budget is counted from. */
const WINDOW = 1024;
const MIN_WINDOWS = 4;
/** A caller's text is text: a special token's spelling in it (`<|endoftext|>`) is counted as ordinary characters, not refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

function countExactly(text: string): number {
  let total = 0;
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + SEGMENT, text.length);
    const space = end < text.length ? text.lastIndexOf(' ', end) : -1;
    if (space > start) end = space;
    const segment = text.slice(start, end);
    if (LONG_RUN.test(segment)) for (const piece of segment.match(PIECES) ?? []) total += countTokens(piece, AS_TEXT);
    else total += countTokens(segment, AS_TEXT);
    start = end;
  }
  return total;
}

/**
 * Counts the tokens of a request's texts with a tokenizer: exactly while the request's 32 KB
 * character budget lasts; a text past it is estimated from windows at random places (so the
 * order of cheap and costly text cannot be used to lower the estimate), so that a hostile 2 MB
 * body cannot cost seconds of CPU. One counter per request.
 */
export class TokenCounter {
  private budget = EXACT_CHAR_BUDGET;

  count(text: string): number {
    if (text.length <= this.budget) {
      this.budget -= text.length;
      return countExactly(text);
    }
    const windows = Math.max(MIN_WINDOWS, Math.floor(this.budget / WINDOW));
    this.budget = Math.max(0, this.budget - windows * WINDOW);
    let sampledChars = 0;
    let sampledTokens = 0;
    for (let i = 0; i < windows; i++) {
      const at = Math.floor(Math.random() * (text.length - WINDOW));
      sampledTokens += countExactly(text.slice(at, at + WINDOW));
      sampledChars += WINDOW;
    }
    return Math.ceil((text.length * sampledTokens) / sampledChars);
  }
}
