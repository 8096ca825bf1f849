export { csvField, csvLine } from './csv-line';
export { MONTH, monthBounds, MOVEMENT_KINDS, STATEMENT_COLUMNS, STATEMENT_HEADER } from './statement-format';
export type { MovementKind, StatementColumn, StatementRow, StatementStatus } from './statement-format';
export { checkStatement, StatementReader } from './statement-reader';
export type { StatementCheck, StatementProblem, StatementSummary } from './statement-reader';
export { publicKeyPem, signatureLine, signingKeyFromSeed, statementKeyId } from './statement-signature';
export { StatementWriter } from './statement-writer';
export type { StatementHead, StatementMovement } from './statement-writer';
