import { randomBytes } from 'node:crypto';

/** The per-reply values that are not a function of the request: ids and time. */
export interface ReplyMeta {
  /** `chatcmpl-<hex>`. */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The request's model, echoed. */
  model: string;
  /** `call_<hex>`, used when the reply calls a tool. */
  toolCallId: string;
}

/** Fresh ids and the current time for one reply. */
export function newReplyMeta(model: string, now: number = Date.now()): ReplyMeta {
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    created: Math.floor(now / 1000),
    model,
    toolCallId: `call_${randomBytes(12).toString('hex')}`,
  };
}
