import { randomBytes } from 'node:crypto';

/** A fresh provider request id, `prov-<24 hex>`, for the x-request-id header of every reply. */
export function newRequestId(): string {
  return `prov-${randomBytes(12).toString('hex')}`;
}
