import { ServerWritableStream } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { DomainError } from '@gw/errors';
import { Logger, rpcStatusOf } from '@gw/service-kit';
import { MonthlyStatements } from '../domain/monthly-statements';
import { SendPart } from '../store/statement-store';

type ReadCall = ServerWritableStream<billingV1.ReadStatementRequest, billingV1.ReadStatementResponse>;

/** A part written to the call, resolved once the call takes more (its flow control), refused once the caller has gone. */
function sender(call: ReadCall): SendPart {
  return (text) =>
    new Promise<void>((resolve, reject) => {
      const gone = () => reject(new DomainError('cancelled', 'the caller went away'));
      if (call.cancelled) return gone();
      if (call.write({ text })) return resolve();
      const drained = () => {
        call.off('cancelled', cancelled);
        resolve();
      };
      const cancelled = () => {
        call.off('drain', drained);
        gone();
      };
      call.once('drain', drained);
      call.once('cancelled', cancelled);
    });
}

/**
 * billing.v1 ReadStatement: the statement's parts as MonthlyStatements sends them, written as the
 * caller reads them; a refusal or failure ends the call with its status (rpcStatusOf), before the
 * signature row, so that a statement cut short never checks.
 */
export function readStatement(statements: MonthlyStatements, logger: Logger): (call: ReadCall) => void {
  return (call) => {
    const { accountId, month } = call.request;
    statements.send(accountId, month, sender(call)).then(
      () => call.end(),
      (err: unknown) => {
        if (!call.cancelled) call.emit('error', rpcStatusOf(err, logger, 'ReadStatement'));
      },
    );
  };
}
