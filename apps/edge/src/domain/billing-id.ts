import { randomFillSync } from 'node:crypto';

const bytes = Buffer.alloc(16);

/**
 * A new billing id: a UUIDv7 (RFC 9562), its first 48 bits the time in milliseconds and the rest
 * random. billing-service files a bill under the month that time falls in, and finds every later
 * bill of the id in that same month, so the id alone keeps a request billed once.
 */
export function newBillingId(now: number = Date.now()): string {
  randomFillSync(bytes, 6, 10);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
