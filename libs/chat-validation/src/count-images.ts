import { AppError } from '@gw/errors';
import { MAX_IMAGES, UsableModel } from './chat-request';

const isImagePart = (part: unknown): boolean =>
  typeof part === 'object' &&
  part !== null &&
  ((part as { type?: unknown }).type === 'image_url' || (part as { type?: unknown }).type === 'image');

/**
 * Counts the image parts of the messages and applies the image rules of docs/api.md#post-v1chatcompletions:
 * images only in user messages, only for a model that reads images, at most 32.
 * Malformed messages are left for the provider to refuse.
 */
export function countImages(messages: unknown, model: UsableModel): number {
  if (!Array.isArray(messages)) return 0;
  let count = 0;
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (!Array.isArray(content)) continue;
    const images = content.filter(isImagePart).length;
    if (images === 0) continue;
    if (role !== 'user')
      throw new AppError('IMAGE_NOT_IN_USER_MESSAGE', 'Images are allowed only in user messages.', { param: 'messages' });
    count += images;
  }
  if (count > 0 && !model.vision) throw new AppError('MODEL_NO_VISION', `The model ${model.id} does not read images.`, { param: 'model' });
  if (count > MAX_IMAGES)
    throw new AppError('TOO_MANY_IMAGES', `At most ${MAX_IMAGES} images per request.`, { param: 'messages', limit: MAX_IMAGES });
  return count;
}
