import { status } from '@grpc/grpc-js';
import { consoleV1 } from '@gw/contracts';
import { Logger, requireId, RpcError, RpcHandlers, rpcService, ServedService, serverChain, toHolderEventKindWire } from '@gw/service-kit';
import { AuthClient } from '../clients/auth-client';
import { HolderAccess } from '../domain/holder-access';
import { canSwitchOff } from '../domain/mail-switches';
import { MailSwitchStore } from '../store/mail-switch-store';

/**
 * console.v1.Console: the operator's invitations, for accounts auth-service knows (else its
 * NOT_FOUND), and the notifier's recipients of an account's mail. The account id is checked
 * against its bound (INVALID_ARGUMENT) before anything is read, the email by HolderAccess.
 */
export function consoleGrpc(access: HolderAccess, auth: AuthClient, switches: MailSwitchStore, logger: Logger): ServedService {
  const handlers: RpcHandlers<consoleV1.ConsoleService> = {
    async createInvite(req) {
      await auth.getAccount(requireId('account_id', req.accountId)).catch((err: { code?: number }) => {
        throw err.code === status.NOT_FOUND ? new RpcError(status.NOT_FOUND, `account ${req.accountId} not found`) : err;
      });
      const { link, expires } = await access.invite(req.accountId, req.email);
      return { link, expires: expires.toISOString() };
    },
    async listMailRecipients(req) {
      const recipients = await switches.recipients(requireId('account_id', req.accountId));
      return {
        recipients: recipients.map((r) => ({
          email: r.email,
          // A security kind is never off, whatever is kept.
          switchedOff: r.switchedOff.filter(canSwitchOff).map(toHolderEventKindWire),
        })),
      };
    },
  };
  return rpcService(consoleV1.ConsoleService, handlers, serverChain(logger));
}
