/** Prompt tokens the simulated provider counts for each image, whatever its size. */
export const IMAGE_PROMPT_TOKENS = 1024;

/** The words of a text: runs of non-space characters, in order. */
export function splitWords(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== '');
}

/**
 * Prompt tokens as the simulated provider counts them: a quarter of the characters of the
 * messages' JSON, rounded up, with image data left out and {@link IMAGE_PROMPT_TOKENS} added per image.
 */
export function countPromptTokens(messages: readonly unknown[]): number {
  let images = 0;
  const json = JSON.stringify(messages, (key, value: unknown) => {
    if (key !== 'image_url') return value;
    images += 1;
    return undefined;
  });
  return Math.ceil(json.length / 4) + images * IMAGE_PROMPT_TOKENS;
}
