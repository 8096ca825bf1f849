import { Migration } from '@gw/service-kit';

/** apply_bills of 025 goes: 033 defines it again with two more arguments, each bill's admitted time and its set-aside reason. */
export const migration: Migration = {
  id: '032-drop-apply-bills-025',
  sql: `DROP FUNCTION billing.apply_bills(text[], text[], text[], boolean[], bigint[], bigint[], boolean[], bigint[], bigint[], bigint[], bigint[], text[], bigint[], text[])`,
};
