import { randomFillSync } from 'node:crypto';

/** Ids whose random bytes are drawn from the system at once (randomUUID buffers its own likewise): a draw costs as much as an id. */
const IDS_PER_DRAW = 400;
const RANDOM_BYTES = 10;
const POOL_BYTES = RANDOM_BYTES * IDS_PER_DRAW;

const bytes = Buffer.alloc(16);
const pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;

/**
 * A new billing id: a UUIDv7 (RFC 9562), its first 48 bits the time in milliseconds and the rest
 * random. billing-service files a bill under the month that time falls in, and finds every later
 * bill of the id in that same month, so the id alone keeps a request billed once.
 */
export function newBillingId(now: number = Date.now()): string {
  if (poolAt === POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  pool.copy(bytes, 6, poolAt, poolAt + RANDOM_BYTES);
  poolAt += RANDOM_BYTES;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
