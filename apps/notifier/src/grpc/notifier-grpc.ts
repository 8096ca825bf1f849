import { notifierV1 } from '@gw/contracts';
import {
  isHolderEventKind,
  Logger,
  requireCount,
  requireId,
  RpcHandlers,
  rpcService,
  ServedService,
  serverChain,
  toHolderEventKindWire,
} from '@gw/service-kit';
import { MailStore } from '../store/mail-store';

/** The most mails one ListMails answers. */
const MAX_MAILS = 100;

/** notifier.v1.Notifier: an account's mails for the console's Mail page; translation only. */
export function notifierGrpc(store: MailStore, logger: Logger): ServedService {
  const handlers: RpcHandlers<notifierV1.NotifierService> = {
    async listMails(req) {
      const mails = await store.forAccount(requireId('account_id', req.accountId), requireCount('limit', req.limit, MAX_MAILS, 1));
      return {
        mails: mails.map((m) => ({
          messageId: m.messageId,
          kind: isHolderEventKind(m.kind) ? toHolderEventKindWire(m.kind) : 0,
          eventAt: m.eventAt.toISOString(),
          to: m.to,
          subject: m.subject,
          text: m.text,
          state: m.state,
          sentAt: m.sentAt?.toISOString() ?? '',
        })),
      };
    },
  };
  return rpcService(notifierV1.NotifierService, handlers, serverChain(logger));
}
