import { audit } from './audit-commands';
import { auditLogCheckpoint, auditLogVerify } from './audit-log-commands';
import {
  accountCreate,
  accountGrantModel,
  accountScheduleDeletion,
  accountShow,
  accountSuspend,
  accountUnsuspend,
  modelAdd,
} from './account-commands';
import { Command } from './command';
import { consoleInvite } from './console-commands';
import { freeTierSet } from './free-tier-commands';
import { keyCreate, keyList, keyRevoke } from './key-commands';
import { ledgerArchive } from './ledger-commands';
import { balanceAdd, priceSet, usageShow } from './money-commands';
import { LocalCommand, tlsInit, tlsIssue } from './tls-commands';

/** Every `NOUN VERB` the CLI knows. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  'account create': accountCreate,
  'account show': accountShow,
  'account suspend': accountSuspend,
  'account unsuspend': accountUnsuspend,
  'account schedule-deletion': accountScheduleDeletion,
  'account grant-model': accountGrantModel,
  'model add': modelAdd,
  'key create': keyCreate,
  'key list': keyList,
  'key revoke': keyRevoke,
  'balance add': balanceAdd,
  'price set': priceSet,
  'usage show': usageShow,
  'ledger archive': ledgerArchive,
  audit,
  'audit-log verify': auditLogVerify,
  'audit-log checkpoint': auditLogCheckpoint,
  'freetier set': freeTierSet,
  'console invite': consoleInvite,
};

/** The `NOUN VERB`s that work on local files and reach no service. */
export const LOCAL_COMMANDS: Readonly<Record<string, LocalCommand>> = {
  'tls init': tlsInit,
  'tls issue': tlsIssue,
};
