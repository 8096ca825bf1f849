import { Command, required } from './command';

/** `console invite --account ID --email E`: a one-time link (30 minutes) where the holder sets a password. */
export const consoleInvite: Command = async (flags, c) => {
  const { link, expires } = await c.console.createInvite({ accountId: required(flags, 'account'), email: required(flags, 'email') });
  return { link, expires };
};
