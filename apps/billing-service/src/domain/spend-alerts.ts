import { DomainError } from '@gw/errors';
import { optionalId, requireCount } from '@gw/service-kit';
import { SpendAlertStore } from '../store/spend-alert-store';
import { SpendAlertClosing, SpendAlertRecord } from '../store/spend-records';

/** ListSpendAlerts' largest page. */
const MAX_ALERTS_PAGE = 100;
const CLOSINGS: readonly SpendAlertClosing[] = ['dismissed', 'key-revoked'];

/** What closes spend alerts (billing.v1 CloseSpendAlertsRequest): one by its id, or every open one naming a key. */
export interface SpendAlertClose {
  /** Empty: any account's (the operator). */
  accountId: string;
  /** 0 when `keyId` names the alerts. */
  alertId: number;
  keyId: string;
  closing: string;
  closedBy: string;
}

/** The spend alerts as the console and the operator see them: listed, and closed once. */
export class SpendAlerts {
  constructor(private readonly store: SpendAlertStore) {}

  /** An account's alerts (or, account '', every account's), the open ones unless `includeClosed`, newest first. */
  list(accountId: string, includeClosed: boolean, limit: number): Promise<SpendAlertRecord[]> {
    optionalId('account_id', accountId);
    requireCount('limit', limit, MAX_ALERTS_PAGE, 1);
    return this.store.list(accountId || undefined, includeClosed, limit);
  }

  /** Closes the alerts named (NOT_FOUND for an alert id that is not the account's); those named, as they then stand. */
  async close(c: SpendAlertClose): Promise<SpendAlertRecord[]> {
    optionalId('account_id', c.accountId);
    optionalId('key_id', c.keyId);
    const closing = CLOSINGS.find((k) => k === c.closing);
    if (!closing) throw new DomainError('invalid-argument', `closing must be one of ${CLOSINGS.join(', ')}`);
    if (c.alertId > 0 === (c.keyId !== ''))
      throw new DomainError('invalid-argument', 'name the alerts by alert_id or by key_id, one of them');
    const accountId = c.accountId || undefined;
    const target = c.alertId > 0 ? { alertId: c.alertId, accountId } : { keyId: c.keyId, accountId };
    const closed = await this.store.close(target, closing, c.closedBy);
    if (!closed) throw new DomainError('not-found', `no spend alert ${c.alertId}${accountId ? ` of account ${accountId}` : ''}`);
    return closed;
  }
}
