import { microToLyd } from '@gw/money';
import { HolderEventKindName, HolderEventValue, SECURITY_EVENT_KINDS } from '@gw/service-kit';
import { HolderNotice } from './holder-notice';

/** What a mail says: its subject line and plain-text body. */
export interface MailText {
  subject: string;
  text: string;
}

type Details = Record<string, HolderEventValue>;

const lyd = (micro: HolderEventValue) =>
  `${microToLyd(Number(micro)).toLocaleString('en-US', { maximumFractionDigits: 6, minimumFractionDigits: 2 })} LYD`;
const when = (at: Date | string) => `${new Date(at).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
const text = (value: HolderEventValue) => (value === null ? '' : String(value));
/** A key as a holder knows it: its name and 12-character prefix (never more of it); its id when neither is known. */
const keyOf = (d: Details) => (d.prefix ? `${d.name ? `"${text(d.name)}" ` : ''}(${text(d.prefix)}…)` : text(d.keyId));

/** The fields of a kind's details that its template says in its own words; any other is listed as a figure. */
const SAID: Partial<Record<HolderEventKindName, string[]>> = { 'key-leak-suspected': ['keyId', 'prefix', 'name', 'reason'] };

/** A figure of the details in words: amounts (…Micro) in LYD. */
function figure(name: string, value: HolderEventValue): string {
  const words = name
    .replace(/Micro$/, '')
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase();
  return `  ${words}: ${/Micro$/.test(name) && typeof value === 'number' ? lyd(value) : text(value)}`;
}

/** Each kind's subject and what happened, with the figures and the console page where to act. */
const TEMPLATES: Record<HolderEventKindName, (d: Details, at: string, account: string, url: string) => MailText> = {
  'top-up-credited': (d, at, account, url) => ({
    subject: `Top-up of ${lyd(d.amountMicro)} credited`,
    text: `A top-up of ${lyd(d.amountMicro)} was credited to account ${account} at ${at}.\nThe balance is now ${lyd(d.balanceMicro)}.\n\nYour balance and use: ${url}/usage`,
  }),
  'low-balance': (d, at, account, url) => ({
    subject: `Low balance: ${lyd(d.balanceMicro)} left`,
    text:
      `The balance of account ${account} fell to ${lyd(d.balanceMicro)} at ${at}, at or below the alert you set at ${lyd(d.thresholdMicro)}.\n` +
      `A request the balance does not cover is tried as a free request, or refused.\n` +
      `We tell you once; again only after the balance has gone back above the alert.\n\nTop up, or change the alert: ${url}/usage#low-balance-alert`,
  }),
  'balance-exhausted': (d, at, account, url) => ({
    subject: 'Your balance can no longer pay for requests',
    text:
      `At ${at} a request of account ${account} needed more than its balance (${lyd(d.balanceMicro)}) has left to lend.\n` +
      `Until the balance is topped up, requests are tried as free requests, or refused (402).\n` +
      `We tell you once until the next top-up.\n\nYour balance and use: ${url}/usage`,
  }),
  'key-created': (d, at, account, url) => ({
    subject: `New API key ${keyOf(d)}`,
    text: `A key ${keyOf(d)} was created for account ${account} at ${at}.\nIf you did not create it, revoke it now: ${url}/keys`,
  }),
  'key-revoked': (d, at, account, url) => ({
    subject: `API key ${keyOf(d)} revoked`,
    text: `The key ${keyOf(d)} of account ${account} was revoked at ${at}: requests with it are refused from now on.\n\nYour keys: ${url}/keys`,
  }),
  'account-suspended': (d, at, account, url) => ({
    subject: 'Account suspended',
    text:
      `Account ${account} was suspended at ${at}, ${d.until ? `until ${when(text(d.until))}` : 'until further notice'}.\n` +
      `${d.reason ? `Reason: ${text(d.reason)}\n` : ''}Every API request with its keys is refused meanwhile.\n\nYour account: ${url}/keys`,
  }),
  // Lifted by the operator: no details, it ended when told. Ended at its end time: endedAt is that end (the event comes a little after).
  'account-unsuspended': (d, at, account, url) => ({
    subject: 'Account suspension ended',
    text:
      `The suspension of account ${account} ${d.endedAt ? `ended at ${when(text(d.endedAt))}, the end it was set with` : `ended at ${at}`}: ` +
      `requests with its keys are served again.\n\nYour account: ${url}/keys`,
  }),
  'key-leak-suspected': (d, at, account, url) => {
    const figures = Object.entries(d).filter(([name]) => !SAID['key-leak-suspected']?.includes(name));
    return {
      subject: `Security: key ${keyOf(d)} may have leaked`,
      text:
        `At ${at} the spending of key ${keyOf(d)} of account ${account} looked like a leak${d.reason ? `: ${text(d.reason)}` : ''}.\n` +
        `${figures.length ? `${figures.map(([name, value]) => figure(name, value)).join('\n')}\n` : ''}` +
        `If you do not recognise this use, revoke the key now: ${url}/keys`,
    };
  },
};

/** The subject and text of the mail that tells a holder of `notice`, with links into the console at `consoleUrl`. */
export function mailText(notice: HolderNotice, consoleUrl: string): MailText {
  const { subject, text: body } = TEMPLATES[notice.kind](notice.details, when(notice.at), notice.accountId, consoleUrl);
  const footer = SECURITY_EVENT_KINDS.includes(notice.kind)
    ? 'This is security mail: it is sent to every holder of the account and cannot be switched off.'
    : `You get this mail as a holder of account ${notice.accountId}. Choose what we mail you about: ${consoleUrl}/mail`;
  return { subject, text: `${body}\n\n-- \n${footer}\n` };
}
