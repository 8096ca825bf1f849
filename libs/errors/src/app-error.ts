import { ERROR_CODES, ErrorCode } from './error-codes';
import { ErrorDescription, ErrorExtras } from './error-body';

/**
 * An error the gateway answers with on purpose. Thrown anywhere in a request's handling and
 * turned into a reply once, by the edge's error handler.
 */
export class AppError extends Error implements ErrorDescription {
  readonly status: number;
  readonly code: string;
  readonly extras: ErrorExtras;

  constructor(code: ErrorCode, message: string, extras: ErrorExtras = {}, status: number = ERROR_CODES[code]) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.extras = extras;
  }

  /** The description the body builder takes. */
  describe(): ErrorDescription {
    return { status: this.status, code: this.code, message: this.message, ...this.extras };
  }
}
