export { ERROR_CODES, OTHER_STATUSES } from './error-codes';
export type { ErrorCode } from './error-codes';
export { errorTypeForStatus } from './error-type';
export { buildErrorBody } from './error-body';
export type { ErrorBody, ErrorDescription, ErrorExtras, SuspensionInfo } from './error-body';
export { AppError } from './app-error';
export { DomainError } from './domain-error';
export type { DomainErrorKind } from './domain-error';
