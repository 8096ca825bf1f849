/** CRC16-CCITT (XMODEM: polynomial 0x1021, initial 0), the checksum Redis Cluster hashes keys with. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The Redis Cluster hash slot of a key, as CLUSTER KEYSLOT answers it (Redis Cluster
 * specification, "Keys distribution model"): CRC16 of the key's hash tag, the bytes between its
 * first `{` and the next `}` when there are any, else of the whole key, mod 16384.
 */
export function clusterSlot(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(Buffer.from(hashed, 'utf8')) % 16384;
}
