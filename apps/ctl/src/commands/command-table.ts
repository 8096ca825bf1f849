import { alertDismiss, alertList } from './alert-commands';
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
import { billsFile, billsSetAside, billsWriteOff } from './bills-commands';
import { Command, Declared, LocalCommand } from './command';
import { consoleInvite } from './console-commands';
import { freeTierSet } from './free-tier-commands';
import { keyCreate, keyList, keyRevoke } from './key-commands';
import { ledgerArchive } from './ledger-commands';
import { balanceAdd, priceSet, usageShow } from './money-commands';
import { statement, statementKey, statementVerify } from './statement-commands';
import { tlsInit, tlsIssue } from './tls-commands';

/**
 * Every `NOUN VERB` the CLI knows, each with its usage line: the flags it declares there are the
 * only ones it is given (checkFlags refuses any other, and a missing required one, before it runs).
 */
export const COMMANDS: Readonly<Record<string, Declared<Command>>> = {
  'account create': { usage: 'account create [--name N] [--balance LYD]', run: accountCreate },
  'account show': { usage: 'account show --account ID', run: accountShow },
  'account suspend': { usage: 'account suspend --account ID [--until ISO-8601] [--reason TEXT]', run: accountSuspend },
  'account unsuspend': { usage: 'account unsuspend --account ID [--reason TEXT]', run: accountUnsuspend },
  'account schedule-deletion': { usage: 'account schedule-deletion --account ID [--reason TEXT]', run: accountScheduleDeletion },
  'account grant-model': { usage: 'account grant-model --account ID --model M [--reason TEXT]', run: accountGrantModel },
  'model add': { usage: 'model add --id M [--vision] [--reason TEXT]', run: modelAdd },
  'key create': { usage: 'key create --account ID [--name N] [--reason TEXT]', run: keyCreate },
  'key list': { usage: 'key list --account ID', run: keyList },
  'key revoke': { usage: 'key revoke --id KEY_ID [--reason TEXT]', run: keyRevoke },
  'alert list': { usage: 'alert list [--account ID] [--closed]', run: alertList },
  'alert dismiss': { usage: 'alert dismiss --id ALERT_ID', run: alertDismiss },
  'balance add': { usage: 'balance add --account ID --amount LYD [--reason TEXT] [--idempotency-key K]', run: balanceAdd },
  'price set': { usage: 'price set --model M --input LYD_PER_MILLION --output LYD_PER_MILLION [--reason TEXT]', run: priceSet },
  'usage show': { usage: 'usage show --account ID', run: usageShow },
  'ledger archive': { usage: 'ledger archive --before YYYY-MM --to FILE', run: ledgerArchive },
  'bills set-aside': { usage: 'bills set-aside', run: billsSetAside },
  'bills file': { usage: 'bills file --request ID [--reason TEXT]', run: billsFile },
  'bills write-off': { usage: 'bills write-off --request ID --reason TEXT', run: billsWriteOff },
  statement: { usage: 'statement --account ID --month YYYY-MM [--to FILE]', run: statement },
  'statement key': { usage: 'statement key', run: statementKey },
  audit: { usage: 'audit', run: audit },
  'audit-log verify': { usage: 'audit-log verify [--checkpoint FILE]', run: auditLogVerify },
  'audit-log checkpoint': { usage: 'audit-log checkpoint', run: auditLogCheckpoint },
  'freetier set': {
    usage: 'freetier set [--daily-tokens N] [--pool-tokens N] [--paused true/false] [--enabled true/false] [--reason TEXT]',
    run: freeTierSet,
  },
  'console invite': { usage: 'console invite --account ID --email E', run: consoleInvite },
};

/** The `NOUN VERB`s that work on local files and reach no service, declared as COMMANDS are. */
export const LOCAL_COMMANDS: Readonly<Record<string, Declared<LocalCommand>>> = {
  'tls init': { usage: 'tls init [--dir D]', run: tlsInit },
  'tls issue': { usage: 'tls issue --identity NAME [--dir D]', run: tlsIssue },
  'statement verify': { usage: 'statement verify FILE [--key PEM_FILE]', run: statementVerify },
};
