import { eventsV1 } from '@gw/contracts';

const { HolderEventKind } = eventsV1;

/** What happened to an account that its holders are told of (events.v1 HolderEventKind), as it is kept. */
export const HOLDER_EVENT_KINDS = [
  'top-up-credited',
  'low-balance',
  'balance-exhausted',
  'key-created',
  'key-revoked',
  'account-suspended',
  'account-unsuspended',
  'key-leak-suspected',
] as const;

/** One of HOLDER_EVENT_KINDS. */
export type HolderEventKindName = (typeof HOLDER_EVENT_KINDS)[number];

/** The kinds whose mail a holder cannot switch off: a key made, a key gone, a key that looks stolen. */
export const SECURITY_EVENT_KINDS: readonly HolderEventKindName[] = ['key-created', 'key-revoked', 'key-leak-suspected'];

const WIRE: Record<HolderEventKindName, eventsV1.HolderEventKind> = {
  'top-up-credited': HolderEventKind.HOLDER_EVENT_KIND_TOP_UP_CREDITED,
  'low-balance': HolderEventKind.HOLDER_EVENT_KIND_LOW_BALANCE,
  'balance-exhausted': HolderEventKind.HOLDER_EVENT_KIND_BALANCE_EXHAUSTED,
  'key-created': HolderEventKind.HOLDER_EVENT_KIND_KEY_CREATED,
  'key-revoked': HolderEventKind.HOLDER_EVENT_KIND_KEY_REVOKED,
  'account-suspended': HolderEventKind.HOLDER_EVENT_KIND_ACCOUNT_SUSPENDED,
  'account-unsuspended': HolderEventKind.HOLDER_EVENT_KIND_ACCOUNT_UNSUSPENDED,
  'key-leak-suspected': HolderEventKind.HOLDER_EVENT_KIND_KEY_LEAK_SUSPECTED,
};

const NAMES = new Map(Object.entries(WIRE).map(([name, wire]) => [wire, name as HolderEventKindName]));

/** A kind as events.v1 carries it. */
export const toHolderEventKindWire = (kind: HolderEventKindName): eventsV1.HolderEventKind => WIRE[kind];

/** A kind from events.v1; undefined for UNSPECIFIED or a kind this release does not know. */
export const fromHolderEventKindWire = (kind: eventsV1.HolderEventKind): HolderEventKindName | undefined => NAMES.get(kind);

/** Whether `text` is the kept name of a kind. */
export const isHolderEventKind = (text: string): text is HolderEventKindName => (HOLDER_EVENT_KINDS as readonly string[]).includes(text);
