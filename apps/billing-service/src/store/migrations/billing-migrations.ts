import { Migration } from '@gw/service-kit';
import { migration as m001 } from './001-balances-prices-holds-ledger';
import { migration as m002 } from './002-place-hold-function';
import { migration as m003 } from './003-balance-within-safe-range';
import { migration as m004 } from './004-hold-renewals';
import { migration as m005 } from './005-credit-lines';
import { migration as m006 } from './006-take-back-line';
import { migration as m007 } from './007-extend-credit-line';
import { migration as m008 } from './008-apply-bills';
import { migration as m009 } from './009-place-hold-beside-line';
import { migration as m010 } from './010-prices-version';
import { migration as m011 } from './011-set-price';
import { migration as m012 } from './012-extend-credit-lines';
import { migration as m013 } from './013-uuid7-time';
import { migration as m014 } from './014-ledger-time';
import { migration as m015 } from './015-ledger-archives';
import { migration as m016 } from './016-add-ledger-month';
import { migration as m017 } from './017-ensure-ledger-months';
import { migration as m018 } from './018-ledger-by-month';
import { migration as m019 } from './019-apply-bills-by-month';
import { migration as m020 } from './020-balance-entries';
import { migration as m021 } from './021-add-balance';
import { migration as m022 } from './022-balance-mismatches';
import { migration as m023 } from './023-charge-ends';
import { migration as m024 } from './024-drop-apply-bills-019';
import { migration as m025 } from './025-apply-bills-with-ends';
import { migration as m030 } from './030-audit-trail';
import { migration as m031 } from './031-set-aside-bills';
import { migration as m032 } from './032-drop-apply-bills-025';
import { migration as m033 } from './033-apply-bills-admitted';
import { migration as m034 } from './034-audit-trail-keyed';
import { migration as m035 } from './035-link-rows';
import { migration as m036 } from './036-price-history';
import { migration as m037 } from './037-set-price-history';
import { migration as m038 } from './038-holder-events';
import { migration as m039 } from './039-balance-alerts';
import { migration as m040 } from './040-kept-statements';
import { migration as m045 } from './045-ledger-key-ids';
import { migration as m046 } from './046-drop-apply-bills-033';
import { migration as m047 } from './047-apply-bills-with-keys';
import { migration as m048 } from './048-spend-watch';

/**
 * The `billing` schema, one migration per file, in id order: balances, prices, holds and the
 * ledger, then credit lines, the price table's versions, the ledger by month, balance entries,
 * end reasons, the audit trail, set-aside bills, money links, the price history, holder events,
 * balance alerts, the statements kept and each key's spend watched for a leak. Money
 * columns are BIGINT micro-LYD. The row invariant `0 <= held_micro <= balance_micro` means what is
 * held is really there, so no charge can take a balance below zero.
 *
 * An applied migration is never edited: a change is a new file with the next id. The current
 * definition of each SQL function is listed in sql-functions.md (checked by its test).
 *
 * Statements are wrapped in one DO block because PGlite sends every query as a prepared
 * statement, which refuses several commands in one string.
 */
export const BILLING_MIGRATIONS: Migration[] = [
  m001,
  m002,
  m003,
  m004,
  m005,
  m006,
  m007,
  m008,
  m009,
  m010,
  m011,
  m012,
  m013,
  m014,
  m015,
  m016,
  m017,
  m018,
  m019,
  m020,
  m021,
  m022,
  m023,
  m024,
  m025,
  m030,
  m031,
  m032,
  m033,
  m034,
  m035,
  m036,
  m037,
  m038,
  m039,
  m040,
  m045,
  m046,
  m047,
  m048,
];
