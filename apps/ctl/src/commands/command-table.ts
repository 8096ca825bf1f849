import { accountCreate, accountShow } from './account-commands';
import { Command } from './command';
import { keyCreate, keyList, keyRevoke } from './key-commands';
import { balanceAdd, priceSet, usageShow } from './money-commands';

/** Every `NOUN VERB` the CLI knows. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  'account create': accountCreate,
  'account show': accountShow,
  'key create': keyCreate,
  'key list': keyList,
  'key revoke': keyRevoke,
  'balance add': balanceAdd,
  'price set': priceSet,
  'usage show': usageShow,
};
