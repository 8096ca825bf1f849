import { ReplyOutcome } from '../domain/billable-usage';
import { readUsage } from '../domain/provider-usage';
import { refusalFromReply, upstreamError } from './provider-refusal';

/** A provider answer read to its end. */
export interface WholeReply {
  status: number;
  contentType: string | undefined;
  providerRequestId: string | undefined;
  body: Buffer;
}

/** What a whole answer comes to: what it bills, and the error the caller gets instead of it, if any. */
export interface WholeReplyVerdict {
  outcome: ReplyOutcome;
  error: Error | undefined;
}

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Judges a whole answer, parsing it once: a 2xx JSON object is the reply (billed by its usage,
 * or estimated when it has none); a 2xx that is empty or not JSON is UPSTREAM_ERROR; anything
 * else is the provider's refusal, passed on. Neither of the last two bills anything.
 */
export function judgeWholeReply(reply: WholeReply): WholeReplyVerdict {
  const parsed = parse(reply.body);
  if (reply.status >= 300) return { outcome: { kind: 'nothing' }, error: refusalFromReply(reply.status, parsed, reply.providerRequestId) };
  if (!isObject(parsed)) return { outcome: { kind: 'nothing' }, error: upstreamError(reply.status) };
  const usage = readUsage(parsed);
  return { outcome: usage ? { kind: 'reported', usage } : { kind: 'partial' }, error: undefined };
}
