import { AuditEntry, ChainWalker, entryHash, GENESIS_HASH } from './audit-chain';

function chain(n: number): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const unhashed = {
      seq,
      at: new Date(Date.UTC(2026, 10, 27, 4, 0, seq)),
      accountId: seq % 2 ? 'acct_a' : null,
      action: 'key-created',
      details: { keyId: `key_${seq}`, prefix: 'sk-shfr-abcd' },
      actor: 'ctl',
      reason: '',
    };
    const entry = { ...unhashed, prevHash, hash: entryHash(prevHash, unhashed) };
    entries.push(entry);
    prevHash = entry.hash;
  }
  return entries;
}

function walk(entries: AuditEntry[], head = { seq: entries.at(-1)?.seq ?? 0, hash: entries.at(-1)?.hash ?? GENESIS_HASH }) {
  const walker = new ChainWalker(head);
  entries.forEach((e) => walker.take(e));
  return walker.end();
}

describe('ChainWalker', () => {
  it('passes an untouched chain, and an empty one', () => {
    expect(walk(chain(5))).toEqual({ entries: 5, ok: true });
    expect(walk([])).toEqual({ entries: 0, ok: true });
  });

  it('hashes details whatever the order of their keys (jsonb gives them back in its own)', () => {
    const [first] = chain(1);
    const reordered = { ...first, details: { prefix: first.details.prefix, keyId: first.details.keyId } };
    expect(entryHash(GENESIS_HASH, reordered)).toBe(first.hash);
  });

  it('names an edited entry', () => {
    const entries = chain(5);
    entries[2] = { ...entries[2], details: { ...entries[2].details, prefix: 'sk-shfr-ffff' } };
    expect(walk(entries)).toEqual({ entries: 5, ok: false, firstBad: { seq: 3, problem: 'edited', detail: expect.any(String) } });
  });

  it('names the entry after a deleted one, and entries missing at the end', () => {
    const entries = chain(5);
    expect(walk([...entries.slice(0, 1), ...entries.slice(3)], { seq: 5, hash: entries[4].hash })).toEqual({
      entries: 3,
      ok: false,
      firstBad: { seq: 4, problem: 'missing', detail: 'entries 2 to 3 are missing before it' },
    });
    expect(walk(entries.slice(0, 4), { seq: 5, hash: entries[4].hash })).toMatchObject({
      ok: false,
      firstBad: { seq: 5, problem: 'missing' },
    });
  });

  it('names an entry that no longer follows the one before it, rewritten hash and all', () => {
    const entries = chain(4);
    const forged = { ...entries[1], actor: 'someone' };
    entries[1] = { ...forged, hash: entryHash(forged.prevHash, forged) };
    expect(walk(entries, { seq: 4, hash: entries[3].hash })).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'relinked' } });
    const last = { ...entries[3], reason: 'why not' };
    expect(walk([...chain(3), { ...last, hash: entryHash(last.prevHash, last) }], { seq: 4, hash: chain(4)[3].hash })).toMatchObject({
      ok: false,
      firstBad: { seq: 4, problem: 'relinked' },
    });
  });

  it('names an entry put in past the head', () => {
    const entries = chain(3);
    expect(walk(entries, { seq: 2, hash: entries[1].hash })).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'inserted' } });
  });
});
