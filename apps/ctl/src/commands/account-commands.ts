import { CtlUsageError } from '../parse-args';
import { accountView } from './account-view';
import { Command, lydFlag, reasonFlag, required } from './command';

/** `account create [--name N] [--balance LYD]` */
export const accountCreate: Command = async (flags, c) => {
  const balance = flags.get('balance');
  const amountMicroLyd = balance === undefined ? 0 : lydFlag('balance', balance);
  if (amountMicroLyd < 0) throw new CtlUsageError('--balance cannot be negative');
  const { account } = await c.auth.createAccount({ name: flags.get('name') ?? '' });
  const accountId = account?.accountId ?? '';
  if (amountMicroLyd > 0) await c.billing.addBalance({ accountId, amountMicroLyd });
  return { accountId };
};

/** `account show --account ID` */
export const accountShow: Command = (flags, c) => accountView(required(flags, 'account'), c);

/** `account suspend --account ID [--until ISO-8601] [--reason TEXT]`: the reason is shown to the holder and kept in the audit trail. */
export const accountSuspend: Command = async (flags, c) => {
  const accountId = required(flags, 'account');
  const req = { accountId, until: flags.get('until') ?? '', reason: flags.get('reason') ?? '' };
  await c.auth.suspendAccount(req);
  return accountView(accountId, c);
};

/** `account unsuspend --account ID [--reason TEXT]` */
export const accountUnsuspend: Command = async (flags, c) => {
  const accountId = required(flags, 'account');
  await c.auth.unsuspendAccount({ accountId, note: { holder: '', reason: reasonFlag(flags) } });
  return accountView(accountId, c);
};

/** `account schedule-deletion --account ID [--reason TEXT]` */
export const accountScheduleDeletion: Command = async (flags, c) => {
  const accountId = required(flags, 'account');
  await c.auth.scheduleAccountDeletion({ accountId, note: { holder: '', reason: reasonFlag(flags) } });
  return accountView(accountId, c);
};

/** `account grant-model --account ID --model M [--reason TEXT]` */
export const accountGrantModel: Command = async (flags, c) => {
  const accountId = required(flags, 'account');
  await c.auth.grantModel({ accountId, modelId: required(flags, 'model'), note: { holder: '', reason: reasonFlag(flags) } });
  return accountView(accountId, c);
};

/** `model add --id M [--vision] [--reason TEXT]`: a model only granted accounts may use. */
export const modelAdd: Command = async (flags, c) => {
  const vision = flags.get('vision');
  if (vision !== undefined && vision !== 'true' && vision !== 'false') throw new CtlUsageError('--vision takes no value, or true/false');
  const { model } = await c.auth.addModel({
    id: required(flags, 'id'),
    vision: vision === 'true',
    note: { holder: '', reason: reasonFlag(flags) },
  });
  return { id: model?.id, vision: model?.vision };
};
