/** One row of a link as its digest reads it (an aggregate over rows `r`, in their order). */
const ROW_TEXT = `r.kind || '|' || r.account_id || '|' || coalesce(r.request_id, '') || '|' || coalesce(r.entry_id::text, '') || '|' || r.amount_micro`;

/** The digest of a link's rows `r` (an aggregate): sha256 of their lines in order, lower-case hex; of no rows, sha256 of nothing. */
export const LINK_DIGEST = `encode(sha256(convert_to(coalesce(string_agg(${ROW_TEXT}, E'\\n' ORDER BY r.n), ''), 'UTF8')), 'hex')`;
