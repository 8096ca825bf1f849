import { connectRedis } from './redis-client';

/** Resolves true when Redis at `url` answers PING within `timeoutMs`; never rejects. */
export async function redisAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  try {
    const client = await connectRedis(url, timeoutMs);
    client.disconnect();
    return true;
  } catch {
    return false;
  }
}
