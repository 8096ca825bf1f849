import { randomUUID } from 'node:crypto';
import type { AdmitRequest } from '../../src/domain/admission';
import { AdmissionStore, AdmitStep } from '../../src/store/admission/admission-store';
import { FreeTierStore } from '../../src/store/free-tier/free-tier-store';
import { LeaseRecord, LeaseStore } from '../../src/store/leases/lease-store';
import { LimitSettings, LimitStore } from '../../src/store/limits/limit-store';
import { OutboxBill, HoldTerms, OutboxRecord, BillOutbox } from '../../src/store/outbox/bill-outbox';

/** An admission store and the stores it shares its state with, as one backend (Redis or memory) opens them. */
export interface AdmissionStores {
  admission: AdmissionStore;
  limits: LimitStore;
  leases: LeaseStore;
  outbox: BillOutbox;
  freeTier: FreeTierStore;
}

/** Opens the stores under test with these settings and this clock (ms). */
export type AdmissionStoresFactory = (settings: LimitSettings, now: () => number) => Promise<AdmissionStores>;

export const SETTINGS: LimitSettings = { requestsPerMinute: 30, concurrentPlaces: 3, placeRecoveryMs: 130_000 };
/** 2031-05-06 10:00:00 UTC: the start of a clock minute. */
export const MINUTE_START = Date.UTC(2031, 4, 6, 10, 0, 0);
export const LEASE_TTL = 30_000;
/** 1 LYD per million prompt tokens, 4 per million completion tokens. */
export const PRICES = { inputMicroPerMillion: 1_000_000, outputMicroPerMillion: 4_000_000 };

/** The hold of a paid request. */
export const holdOf = (amountMicro: number): HoldTerms => ({ amountMicro, ...PRICES });

/** The lease an admission starts: admitted (max_tokens set), with its hold when paid. */
export function admittedLease(accountId: string, requestId: string, hold?: HoldTerms): LeaseRecord {
  return {
    requestId,
    accountId,
    model: 'vendor-v4-flash',
    payment: hold ? 'paid' : 'free',
    promptTokens: 0,
    completionTokens: 0,
    usageEstimated: true,
    maxTokens: 1000,
    ...(hold ? { hold } : {}),
  };
}

/** An admission step of a paid request holding `worstMicro` (mode `count` unless told). */
export function paidStep(accountId: string, worstMicro: number, overrides: Partial<AdmitStep> = {}): AdmitStep {
  const requestId = overrides.requestId ?? `req_${randomUUID()}`;
  return {
    accountId,
    requestId,
    mode: 'count',
    payment: 'paid',
    worstMicro,
    lease: admittedLease(accountId, requestId, holdOf(worstMicro)),
    leaseTtlMs: LEASE_TTL,
    ...overrides,
  };
}

/** An admission step of a free request (mode `nocount` unless told, as Admit places a free request). */
export function freeStep(accountId: string, overrides: Partial<AdmitStep> = {}): AdmitStep {
  const requestId = overrides.requestId ?? `req_${randomUUID()}`;
  return {
    accountId,
    requestId,
    mode: 'nocount',
    payment: 'free',
    worstMicro: 0,
    lease: admittedLease(accountId, requestId),
    leaseTtlMs: LEASE_TTL,
    ...overrides,
  };
}

/** The bill of a paid request that used `prompt` and `completion` tokens under a hold of `heldMicro`. */
export function paidBill(
  accountId: string,
  requestId: string,
  heldMicro: number,
  prompt: number,
  completion: number,
  chargeMicro: number,
): OutboxBill {
  return {
    kind: 'bill',
    requestId,
    accountId,
    model: 'vendor-v4-flash',
    payment: 'paid',
    promptTokens: prompt,
    completionTokens: completion,
    usageEstimated: false,
    hold: holdOf(heldMicro),
    chargeMicro,
  };
}

/** The records of the outbox that concern `accountId` (the outbox is shared by the tests). */
export async function outboxOf(outbox: BillOutbox, accountId: string): Promise<OutboxRecord[]> {
  return (await outbox.claim(10_000)).map((c) => c.record).filter((r) => r.accountId === accountId);
}

/** Gives the account's line `grantedMicro` in all, as an extension's answer would (a step that covers nothing). */
export async function grantLine(admission: AdmissionStore, accountId: string, grantedMicro: number): Promise<void> {
  await admission.admit(
    paidStep(accountId, Number.MAX_SAFE_INTEGER, { mode: 'nocount', merge: { granted: grantedMicro, charged: 0, returned: 0 } }),
  );
}

/** Whether the request has a lease: a renewal of it is not refused as unknown (the renewal leaves it as it was). */
export async function isLeased(leases: LeaseStore, lease: LeaseRecord): Promise<boolean> {
  return (await leases.renew([lease], LEASE_TTL)).length === 0;
}

/** How many of 3 more requests get a place now (each taken, then given back). */
export async function freePlaces(limits: LimitStore, accountId: string): Promise<number> {
  const probes = ['probe-1', 'probe-2', 'probe-3'];
  let granted = 0;
  for (const id of probes) if ((await limits.acquirePlace(accountId, id)).granted) granted++;
  for (const id of probes) await limits.releasePlace(accountId, id, 0);
  return granted;
}

/**
 * An Admit of 1,000 prompt tokens and 1,000 max_tokens of vendor-v4-flash (at PRICES: 5,000
 * micro-LYD held) with key `key_fixture`, the free tier's facts those of a small request it grants
 * (quota.v1 AdmitRequest has the same fields).
 */
export function admitRequest(accountId: string, requestId: string, overrides: Partial<AdmitRequest> = {}): AdmitRequest {
  return {
    accountId,
    requestId,
    model: 'vendor-v4-flash',
    promptTokens: 1000,
    maxTokens: 1000,
    thinking: false,
    textPromptTokens: 900,
    imageCount: 0,
    newMessageTokens: 100,
    jsonBytes: 5000,
    keyId: 'key_fixture',
    ...overrides,
  };
}
