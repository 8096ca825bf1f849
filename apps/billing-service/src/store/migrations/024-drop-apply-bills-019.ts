import { Migration } from '@gw/service-kit';

/** apply_bills of 019 goes: 025 defines it again with one more argument, each bill's end reason. */
export const migration: Migration = {
  id: '024-drop-apply-bills-019',
  sql: `DROP FUNCTION billing.apply_bills(text[], text[], text[], boolean[], bigint[], bigint[], boolean[], bigint[], bigint[], bigint[], bigint[], text[], bigint[])`,
};
