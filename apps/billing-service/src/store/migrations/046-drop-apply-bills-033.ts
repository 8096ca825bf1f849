import { Migration } from '@gw/service-kit';

/** apply_bills of 033 goes: 047 defines it again with one more argument, each bill's key. */
export const migration: Migration = {
  id: '046-drop-apply-bills-033',
  sql: `DROP FUNCTION billing.apply_bills(text[], text[], text[], boolean[], bigint[], bigint[], boolean[], bigint[], bigint[], bigint[], bigint[], text[], bigint[], text[], timestamptz[], text[])`,
};
