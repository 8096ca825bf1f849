import { CheckedChatRequest } from '@gw/chat-validation';
import { AppError } from '@gw/errors';
import { ReplyOutcome } from '../domain/billable-usage';
import { ReplyProgress } from '../domain/reply-progress';
import { ProviderClient, ProviderResponse } from './provider-client';
import { ProviderTimer } from './provider-timer';
import { ReplyListener } from './reply-listener';
import { SseEventScanner } from './sse-event-scanner';
import { judgeWholeReply } from './whole-reply';

/** What reading the provider's reply came to: its bill, and whether it came whole (for the end reason). */
export interface ReadReply {
  outcome: ReplyOutcome;
  whole: boolean;
}

const interrupted = () => new AppError('UPSTREAM_INTERRUPTED', 'The provider reply broke off.');

/**
 * Calls the provider and relays its reply to `listener`, reading it to the end whatever the
 * caller does, so it can be billed. A streamed request whose answer is a 2xx event stream is
 * passed on piece by piece; every other answer (refusals included) is read whole first.
 * `timer` is told when the call goes out, is answered and ends, before `listener` hears of it;
 * `progress` follows what the reply would be billed as it comes in (for the request's lease).
 * Never throws: resolves with what the reply comes to for billing, and whether it came whole.
 */
export async function relayProviderReply(
  provider: Pick<ProviderClient, 'send'>,
  request: CheckedChatRequest,
  callerRequestId: string,
  listener: ReplyListener,
  timer: ProviderTimer,
  progress: ReplyProgress,
): Promise<ReadReply> {
  let response: ProviderResponse;
  timer.called();
  try {
    response = await provider.send(request.body, callerRequestId);
  } catch (err) {
    timer.ended();
    listener.fail(err instanceof Error ? err : new Error(String(err)));
    return { outcome: { kind: 'nothing' }, whole: false };
  }
  timer.answered();
  listener.heard();
  const isStream = response.status < 300 && (response.contentType ?? '').startsWith('text/event-stream');
  if (request.stream && isStream) return relayStream(response, request.includeUsage, listener, timer, progress);
  return relayWhole(response, listener, timer, progress);
}

async function relayWhole(
  response: ProviderResponse,
  listener: ReplyListener,
  timer: ProviderTimer,
  progress: ReplyProgress,
): Promise<ReadReply> {
  const pieces: Buffer[] = [];
  let brokeOff = false;
  try {
    for await (const piece of response.body) {
      pieces.push(piece);
      if (response.status < 300) progress.partArrived();
      listener.heard();
    }
  } catch {
    brokeOff = true;
  }
  timer.ended();
  if (brokeOff) {
    listener.fail(interrupted());
    return { outcome: response.status < 300 && pieces.length > 0 ? { kind: 'partial' } : { kind: 'nothing' }, whole: false };
  }
  const reply = { ...response, body: Buffer.concat(pieces) };
  const verdict = judgeWholeReply(reply);
  if (verdict.error) listener.fail(verdict.error);
  else listener.whole(reply);
  return { outcome: verdict.outcome, whole: !verdict.error };
}

async function relayStream(
  response: ProviderResponse,
  includeUsage: boolean,
  listener: ReplyListener,
  timer: ProviderTimer,
  progress: ReplyProgress,
): Promise<ReadReply> {
  const scanner = new SseEventScanner(includeUsage);
  listener.streamStarted();
  try {
    for await (const piece of response.body) {
      listener.heard();
      const events = scanner.push(piece);
      if (scanner.usage) progress.usageReported(scanner.usage);
      else if (scanner.anyEvent) progress.partArrived();
      if (events.length > 0) listener.events(events);
    }
  } catch {
    // Broken off: the missing [DONE] below says so.
  }
  timer.ended();
  // A stream that ends without [DONE] broke off too, even when the connection closed cleanly.
  if (scanner.done) listener.streamEnded();
  else listener.fail(interrupted());
  const whole = scanner.done;
  if (scanner.usage) return { outcome: { kind: 'reported', usage: scanner.usage }, whole };
  return { outcome: scanner.anyEvent ? { kind: 'partial' } : { kind: 'nothing' }, whole };
}
