import { Response } from 'express';
import { Verdict } from '../../admission/verdict';

/**
 * Writes an admission verdict's headers (X-RateLimit-*, Retry-After) on the reply, and throws its
 * refusal for the error handler to write; returns what passed.
 */
export function passVerdict<T>(res: Response, verdict: Verdict<T>): T {
  for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value);
  if (verdict.refused) throw verdict.refused;
  return verdict.passed;
}
