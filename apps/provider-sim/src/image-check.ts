import { isRecord } from './is-record';
import { ProviderRefusal, refusal } from './provider-refusal';

const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/]+={0,2}$/i;

/**
 * The provider "downloads" every image part: a base64 `data:image/...` URL reads fine, and so does
 * an https URL unless it contains "unreadable" (how tests ask for a broken image). Anything else is refused.
 */
export function checkImages(messages: readonly unknown[]): ProviderRefusal | undefined {
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isRecord(part) || part.type !== 'image_url') continue;
      const url = isRecord(part.image_url) ? part.image_url.url : undefined;
      if (!isReadable(url)) {
        return refusal(400, `Invalid image in messages[${index}]: the image could not be downloaded or read.`, 'messages');
      }
    }
  }
  return undefined;
}

function isReadable(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  if (url.startsWith('data:')) return DATA_IMAGE.test(url);
  return url.startsWith('https://') && !url.includes('unreadable');
}
