import { ServerResponse } from 'node:http';
import { Response } from 'express';
import { BillableUsage } from '../../domain/billable-usage';
import { ProviderTimer } from '../../upstream/provider-timer';

/** The header with the gateway's own time in a reply, in milliseconds (a decimal). */
export const OVERHEAD_HEADER = 'X-Gateway-Overhead-Ms';

/**
 * What one request did, gathered as it goes (by the route, the provider relay and the error
 * handler) for its one log line and its metrics. It is over when the caller's reply is over
 * and every piece of work handed to {@link awaits} has settled (the provider's reply is read
 * to its end also when the caller left); then `whenOver` runs, once. Times are
 * `performance.now()` milliseconds.
 */
export class RequestRecord implements ProviderTimer {
  readonly startedAt = performance.now();
  accountId: string | undefined;
  model: string | undefined;
  /** Whether the caller asked for a stream. */
  stream: boolean | undefined;
  payment: 'paid' | 'free' | undefined;
  /** The id the request is held, placed and billed under (`request_id` in the ledger). */
  billingId: string | undefined;
  /** What the request is billed with, once its reply has been read to the end. */
  usage: BillableUsage | undefined;
  /** Set on POST /v1/chat/completions: its replies carry {@link OVERHEAD_HEADER}. */
  reportsOverhead = false;
  /** The value {@link OVERHEAD_HEADER} was sent with. */
  overheadMs: number | undefined;
  /** The error code the caller got; undefined when it got the reply. */
  errorCode: string | undefined;
  /** Whether the error is one the gateway answers with on purpose (an AppError), not the provider's refusal passed on. */
  gatewayRefusal = false;
  providerCalledAt: number | undefined;
  providerAnsweredAt: number | undefined;
  providerEndedAt: number | undefined;
  replyEndedAt: number | undefined;
  private pending = 1;

  constructor(private readonly whenOver: (record: RequestRecord) => void) {}

  called(): void {
    this.providerCalledAt = performance.now();
  }

  answered(): void {
    this.providerAnsweredAt = performance.now();
  }

  ended(): void {
    this.providerEndedAt = performance.now();
  }

  /** The caller gets the error `code` instead of the reply. */
  failed(code: string, gatewayRefusal: boolean): void {
    this.errorCode = code;
    this.gatewayRefusal = gatewayRefusal;
  }

  /**
   * Sets {@link OVERHEAD_HEADER} on a reply whose headers are about to go out: the time since
   * the request arrived minus the time spent waiting for the provider (its whole reply, or for
   * a stream its headers, which are all the caller's headers wait for). Only on requests that
   * report it.
   */
  stampOverhead(res: ServerResponse): void {
    if (!this.reportsOverhead) return;
    const now = performance.now();
    const called = this.providerCalledAt;
    const waited = called === undefined ? 0 : (this.providerEndedAt ?? this.providerAnsweredAt ?? now) - called;
    this.overheadMs = Math.max(0, now - this.startedAt - waited);
    res.setHeader(OVERHEAD_HEADER, this.overheadMs.toFixed(3));
  }

  /** The record is not over before `work` settles, whatever it settles with. */
  awaits(work: Promise<unknown>): void {
    this.pending += 1;
    const release = () => this.release();
    work.then(release, release);
  }

  /** The caller's reply is over: sent, failed, or the caller left. */
  replyEnded(): void {
    this.replyEndedAt = performance.now();
    this.release();
  }

  private release(): void {
    this.pending -= 1;
    if (this.pending === 0) this.whenOver(this);
  }
}

/** The record of the request `res` answers (set first thing by requestLog). */
export const recordOf = (res: Response): RequestRecord => res.locals.record as RequestRecord;
