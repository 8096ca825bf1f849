import { status as grpcStatus } from '@grpc/grpc-js';
import { DomainError } from '@gw/errors';
import { grpcCodeOf } from '@gw/service-kit';

/** A request refused for what it sent: its HTTP status, the page's title and text, and a reason for the log. */
export interface Refusal {
  status: number;
  title: string;
  message: string;
  reason: string;
}

/**
 * The refusal an error stands for when the request, not the console, is at fault, else
 * undefined: a body the parser refused (too large, too many fields, unreadable), or a value a
 * service found invalid (INVALID_ARGUMENT for what the holder typed or put in the address).
 */
export function refusalOf(err: unknown): Refusal | undefined {
  const fault = err as { status?: unknown; type?: unknown; expose?: unknown; code?: unknown; details?: unknown } | null;
  if (typeof fault !== 'object' || fault === null) return undefined;
  // The router's own: a percent-escape in the path it cannot decode. Its message holds the path
  // part (an invitation token, perhaps), so the log gets a fixed reason.
  if (err instanceof URIError && fault.status === 400) {
    return {
      status: 400,
      title: 'Address not readable',
      message: 'The console could not read that address. Check the link and try again.',
      reason: 'path not decodable',
    };
  }
  if (fault.expose === true && typeof fault.status === 'number' && fault.status >= 400 && fault.status < 500) {
    const reason = typeof fault.type === 'string' ? fault.type : `http ${fault.status}`;
    if (fault.status === 413)
      return {
        status: 413,
        title: 'Too much sent',
        message: 'That form sent more than the console accepts. Go back and shorten it.',
        reason,
      };
    return {
      status: fault.status,
      title: 'Form not readable',
      message: 'The console could not read that form. Go back and send it again.',
      reason,
    };
  }
  // A service's INVALID_ARGUMENT, or the same refusal of a check run here (DomainError).
  const details = err instanceof DomainError ? err.message : fault.details;
  if (grpcCodeOf(err) === grpcStatus.INVALID_ARGUMENT && typeof details === 'string') {
    return {
      status: 400,
      title: 'Not a valid request',
      message: 'Something in that request is not valid. Go back and check it.',
      reason: details,
    };
  }
  return undefined;
}
