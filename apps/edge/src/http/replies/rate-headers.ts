import { Response } from 'express';
import { quotaV1 } from '@gw/contracts';

/** Sets X-RateLimit-Limit, -Remaining and -Reset (docs/api.md#rate-limits). */
export function setRateHeaders(res: Response, count: Pick<quotaV1.CountRequestResponse, 'limit' | 'remaining' | 'resetUnixSeconds'>): void {
  res.setHeader('X-RateLimit-Limit', String(count.limit));
  res.setHeader('X-RateLimit-Remaining', String(count.remaining));
  res.setHeader('X-RateLimit-Reset', String(count.resetUnixSeconds));
}
