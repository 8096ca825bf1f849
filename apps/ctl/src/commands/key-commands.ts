import { Command, reasonFlag, required } from './command';

/** `key create --account ID [--name N] [--reason TEXT]`: the only time the key is shown. */
export const keyCreate: Command = async (flags, c) => {
  const res = await c.auth.createKey({
    accountId: required(flags, 'account'),
    name: flags.get('name') ?? '',
    note: { holder: '', reason: reasonFlag(flags) },
  });
  const info = res.info;
  return { id: info?.id, key: res.key, prefix: info?.prefix, name: info?.name, created: info?.created };
};

/** `key list --account ID` */
export const keyList: Command = async (flags, c) => {
  const { keys } = await c.auth.listKeys({ accountId: required(flags, 'account') });
  return keys.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, created: k.created, lastUsed: k.lastUsed || 'Never' }));
};

/**
 * `key revoke --id KEY_ID [--reason TEXT]`; the key's open spend alerts close with it
 * (`alertsClosed`: how many; null when billing-service could not be asked, the key being revoked
 * all the same: its alerts then stay open, the console showing the key as no longer active).
 */
export const keyRevoke: Command = async (flags, c) => {
  const { keyId } = await c.auth.revokeKey({
    keyId: required(flags, 'id'),
    accountId: '',
    note: { holder: '', reason: reasonFlag(flags) },
  });
  const closed = await c.billing.closeSpendAlerts({ accountId: '', alertId: 0, keyId, closing: 'key-revoked', closedBy: '' }).then(
    ({ alerts }) => alerts.length,
    () => null,
  );
  return { id: keyId, revoked: true, alertsClosed: closed };
};
