import { countPromptTokens, IMAGE_PROMPT_TOKENS, splitWords } from './token-count';

describe('splitWords', () => {
  it('splits on any run of white space and drops empty ends', () => {
    expect(splitWords('  one two\n\tthree  ')).toEqual(['one', 'two', 'three']);
  });

  it('gives no words for an empty or blank text', () => {
    expect(splitWords('')).toEqual([]);
    expect(splitWords(' \n ')).toEqual([]);
  });

  it('keeps punctuation with its word', () => {
    expect(splitWords('Echo: hi, there!')).toEqual(['Echo:', 'hi,', 'there!']);
  });
});

describe('countPromptTokens', () => {
  it('is a quarter of the characters of the messages JSON, rounded up', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const chars = JSON.stringify(messages).length;
    expect(countPromptTokens(messages)).toBe(Math.ceil(chars / 4));
  });

  it('gives the same count for the same messages', () => {
    const messages = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello' },
    ];
    expect(countPromptTokens(messages)).toBe(countPromptTokens(structuredClone(messages)));
  });

  it('grows with the text', () => {
    const short = countPromptTokens([{ role: 'user', content: 'a' }]);
    const long = countPromptTokens([{ role: 'user', content: 'a'.repeat(400) }]);
    expect(long - short).toBe(100);
  });

  it('counts each image as a fixed number of tokens, whatever its data size', () => {
    const withImage = (data: string) => [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
        ],
      },
    ];
    const small = countPromptTokens(withImage('AAAA'));
    expect(countPromptTokens(withImage('A'.repeat(100_000)))).toBe(small);
    const text = JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url' }] }]);
    expect(small).toBe(Math.ceil(text.length / 4) + IMAGE_PROMPT_TOKENS);
  });
});
