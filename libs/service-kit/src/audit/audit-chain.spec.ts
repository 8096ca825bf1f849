import { AuditEntry, ChainPoint, ChainWalker, entryHash, GENESIS_HASH, linkMac } from './audit-chain';

const KEY = Buffer.from('a deployment secret of 32 characters or more');
const OTHER_KEY = Buffer.from('another secret, that a database administrator guessed');

/** A chain of n entries, keyed from entry `keyedFrom` on (1: all of them; n + 1: none). */
function chain(n: number, keyedFrom = 1, key = KEY): AuditEntry[] {
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
    const hash = entryHash(prevHash, unhashed);
    const entry = { ...unhashed, prevHash, hash, mac: seq >= keyedFrom ? linkMac(key, hash) : null };
    entries.push(entry);
    prevHash = entry.hash;
  }
  return entries;
}

function walk(
  entries: AuditEntry[],
  head = { seq: entries.at(-1)?.seq ?? 0, hash: entries.at(-1)?.hash ?? GENESIS_HASH },
  checkpoint?: ChainPoint,
  unkeyedEntries = 0,
) {
  const walker = new ChainWalker(head, KEY, checkpoint, unkeyedEntries);
  entries.forEach((e) => walker.take(e));
  return walker.end();
}

describe('ChainWalker', () => {
  it('passes an untouched chain, and an empty one', () => {
    const entries = chain(5);
    expect(walk(entries)).toEqual({
      entries: 5,
      ok: true,
      unkeyedEntries: 0,
      head: { seq: 5, hash: entries[4].hash, mac: entries[4].mac, at: entries[4].at.toISOString() },
    });
    expect(walk([])).toEqual({ entries: 0, ok: true, unkeyedEntries: 0 });
  });

  it('hashes details whatever the order of their keys (jsonb gives them back in its own)', () => {
    const [first] = chain(1);
    const reordered = { ...first, details: { prefix: first.details.prefix, keyId: first.details.keyId } };
    expect(entryHash(GENESIS_HASH, reordered)).toBe(first.hash);
  });

  it('names an edited entry', () => {
    const entries = chain(5);
    entries[2] = { ...entries[2], details: { ...entries[2].details, prefix: 'sk-shfr-ffff' } };
    expect(walk(entries)).toEqual({
      entries: 5,
      ok: false,
      unkeyedEntries: 0,
      firstBad: { seq: 3, problem: 'edited', detail: expect.any(String) },
    });
  });

  it('names the entry after a deleted one, and entries missing at the end', () => {
    const entries = chain(5);
    expect(walk([...entries.slice(0, 1), ...entries.slice(3)], { seq: 5, hash: entries[4].hash })).toEqual({
      entries: 3,
      ok: false,
      unkeyedEntries: 0,
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
    entries[1] = { ...forged, hash: entryHash(forged.prevHash, forged), mac: linkMac(KEY, entryHash(forged.prevHash, forged)) };
    expect(walk(entries, { seq: 4, hash: entries[3].hash })).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'relinked' } });
    const last = { ...entries[3], reason: 'why not' };
    const lastHash = entryHash(last.prevHash, last);
    expect(walk([...chain(3), { ...last, hash: lastHash, mac: linkMac(KEY, lastHash) }], { seq: 4, hash: chain(4)[3].hash })).toMatchObject(
      {
        ok: false,
        firstBad: { seq: 4, problem: 'relinked' },
      },
    );
  });

  it('names an entry put in past the head', () => {
    const entries = chain(3);
    expect(walk(entries, { seq: 2, hash: entries[1].hash })).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'inserted' } });
  });

  describe('keyed', () => {
    /** Rewrites entry `at` (0-based) and re-hashes every entry after it, as the recipe does without the key: macs from `key` (or none). */
    function rewritten(entries: AuditEntry[], at: number, key?: Buffer): AuditEntry[] {
      const out = entries.map((e) => ({ ...e }));
      out[at] = { ...out[at], details: { ...out[at].details, prefix: 'sk-shfr-ffff' } };
      for (let i = at; i < out.length; i++) {
        const prevHash = i === 0 ? GENESIS_HASH : out[i - 1].hash;
        const hash = entryHash(prevHash, { ...out[i] });
        out[i] = { ...out[i], prevHash, hash, mac: key ? linkMac(key, hash) : out[i].mac };
      }
      return out;
    }
    const headOf = (entries: AuditEntry[]) => ({ seq: entries[entries.length - 1].seq, hash: entries[entries.length - 1].hash });
    const pointOf = (e: AuditEntry): ChainPoint => ({ seq: e.seq, hash: e.hash, mac: e.mac ?? '', at: e.at.toISOString() });

    it('names the first link re-hashed without the key, its old mac kept or one made with another key', () => {
      for (const key of [undefined, OTHER_KEY]) {
        const forged = rewritten(chain(6), 2, key);
        expect(walk(forged, headOf(forged))).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'forged' } });
      }
    });

    it('names a link without a mac after keyed ones: a forged link cannot pass as an old one', () => {
      const forged = rewritten(chain(6), 2).map((e, i) => (i >= 2 ? { ...e, mac: null } : e));
      expect(walk(forged, headOf(forged))).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'unkeyed' } });
    });

    it('accepts the links an upgraded deployment wrote before links were keyed (AUDIT_UNKEYED_ENTRIES), and says how many', () => {
      const entries = chain(6, 4);
      expect(walk(entries, undefined, undefined, 3)).toMatchObject({ ok: true, entries: 6, unkeyedEntries: 3 });
      expect(walk(chain(3, 4), undefined, undefined, 3)).toMatchObject({ ok: true, entries: 3, unkeyedEntries: 3 });
      expect(walk(entries, undefined, undefined, 2)).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'unkeyed' } });
      expect(walk(entries)).toMatchObject({ ok: false, firstBad: { seq: 1, problem: 'unkeyed' } });
    });

    it('passes a chain that extends its checkpoint', () => {
      const entries = chain(8);
      expect(walk(entries, headOf(entries), pointOf(entries[4]))).toMatchObject({ ok: true, entries: 8 });
      expect(walk(entries, headOf(entries), pointOf(entries[7]))).toMatchObject({ ok: true, entries: 8 });
    });

    it('names a cut tail, a rolled-back head, against the checkpoint', () => {
      const entries = chain(8);
      const cut = entries.slice(0, 5);
      expect(walk(cut, headOf(cut), pointOf(entries[7]))).toMatchObject({
        ok: false,
        firstBad: { seq: 8, problem: 'checkpoint-cut', detail: expect.stringContaining('ends at entry 5') },
      });
    });

    it('names a prefix rewritten under the key against the checkpoint (the key leaked)', () => {
      const entries = chain(8);
      const forged = rewritten(entries, 1, KEY);
      expect(walk(forged, headOf(forged))).toMatchObject({ ok: true });
      expect(walk(forged, headOf(forged), pointOf(entries[5]))).toMatchObject({
        ok: false,
        firstBad: { seq: 6, problem: 'checkpoint-diverged' },
      });
    });

    it('does not take a whole chain stripped of its macs for an old one: not without a checkpoint, nor past a keyed one', () => {
      const entries = chain(6);
      const stripped = rewritten(entries, 0).map((e) => ({ ...e, mac: null }));
      expect(walk(stripped, headOf(stripped))).toMatchObject({ ok: false, firstBad: { seq: 1, problem: 'unkeyed' } });
      expect(walk(stripped, headOf(stripped), undefined, 6)).toMatchObject({ ok: true, unkeyedEntries: 6 });
      expect(walk(stripped, headOf(stripped), pointOf(entries[2]), 6)).toMatchObject({ ok: false, firstBad: { seq: 3 } });
    });
  });
});
