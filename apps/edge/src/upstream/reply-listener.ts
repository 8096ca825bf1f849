import { WholeReply } from './whole-reply';

/**
 * What the provider side of a request tells the caller side as the reply comes in. The provider
 * side reads the reply to its end whatever happens to the caller; once the caller's reply is
 * over (sent, failed, timed out, or the caller left), further calls do nothing.
 */
export interface ReplyListener {
  /** The provider sent something (its headers or a piece): it is not silent. */
  heard(): void;
  /** A whole answer that is the reply, complete: send it as it is. */
  whole(reply: WholeReply): void;
  /** The provider's event stream began: open the caller's. */
  streamStarted(): void;
  /** Whole events to pass on now. */
  events(bytes: Buffer): void;
  /** The provider's stream ended with `data: [DONE]`. */
  streamEnded(): void;
  /** The reply cannot be given: the caller gets this error instead. */
  fail(error: Error): void;
}
