import { parseLyd } from '@gw/money';
import { unaryCall } from '@gw/service-kit';
import { CtlUsageError } from '../parse-args';
import { accountView } from './account-view';
import { Command, required } from './command';

/** `account create [--name N] [--balance LYD]` */
export const accountCreate: Command = async (flags, c) => {
  const balance = flags.get('balance');
  const amountMicroLyd = balance === undefined ? 0 : parseLyd(balance);
  if (amountMicroLyd === undefined || amountMicroLyd < 0) throw new CtlUsageError('--balance must be an amount in LYD, at least 0');
  const { account } = await unaryCall(c.auth.createAccount.bind(c.auth), { name: flags.get('name') ?? '' }, c.timeoutMs);
  const accountId = account?.accountId ?? '';
  if (amountMicroLyd > 0) await unaryCall(c.billing.addBalance.bind(c.billing), { accountId, amountMicroLyd }, c.timeoutMs);
  return { accountId };
};

/** `account show --account ID` */
export const accountShow: Command = (flags, c) => accountView(required(flags, 'account'), c);
