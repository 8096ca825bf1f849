import { microToLyd } from '@gw/money';
import { CtlClients } from '../ctl-clients';

/** An account as `account show` prints it: identity from auth-service, balance from billing-service. */
export async function accountView(accountId: string, c: CtlClients): Promise<unknown> {
  const [{ account }, { balanceMicroLyd }, { models }] = await Promise.all([
    c.auth.getAccount({ accountId }),
    c.billing.getBalance({ accountId }),
    c.auth.listModels({ accountId }),
  ]);
  const s = account?.suspension;
  return {
    accountId,
    name: account?.name ?? '',
    balance: microToLyd(balanceMicroLyd),
    suspension: s ? { until: s.until || null, reason: s.reason || null, whatsapp: s.whatsapp } : null,
    models: models.map((m) => m.id),
  };
}
