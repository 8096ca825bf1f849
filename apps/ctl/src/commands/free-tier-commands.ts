import { CtlUsageError } from '../parse-args';
import { Command, reasonFlag } from './command';

function tokens(flags: Map<string, string>, name: string): number | undefined {
  const value = flags.get(name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new CtlUsageError(`--${name} must be a whole number of tokens, at least 0`);
  return Number(value);
}

function onOff(flags: Map<string, string>, name: string): boolean | undefined {
  const value = flags.get(name);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new CtlUsageError(`--${name} must be true or false`);
  return value === 'true';
}

/**
 * `freetier set [--daily-tokens N] [--pool-tokens N] [--paused true/false] [--enabled true/false] [--reason TEXT]`:
 * changes the given settings for every replica and prints them all (with no flag, only prints).
 */
export const freeTierSet: Command = async (flags, c) => {
  const req = {
    dailyTokens: tokens(flags, 'daily-tokens'),
    poolTokens: tokens(flags, 'pool-tokens'),
    paused: onOff(flags, 'paused'),
    enabled: onOff(flags, 'enabled'),
    reason: reasonFlag(flags),
  };
  const { settings } = await c.quota.setFreeTierSettings(req);
  return { dailyTokens: settings?.dailyTokens, poolTokens: settings?.poolTokens, paused: settings?.paused, enabled: settings?.enabled };
};
