import { unaryCall } from '@gw/service-kit';
import { Command, required } from './command';

/** `console invite --account ID --email E`: a one-time link (30 minutes) where the holder sets a password. */
export const consoleInvite: Command = async (flags, c) => {
  const { link, expires } = await unaryCall(
    c.console.createInvite.bind(c.console),
    { accountId: required(flags, 'account'), email: required(flags, 'email') },
    c.timeoutMs,
  );
  return { link, expires };
};
