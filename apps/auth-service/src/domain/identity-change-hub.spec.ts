import { IdentityChangeHub, WatcherMessage } from './identity-change-hub';

function watcher() {
  const sent: WatcherMessage[] = [];
  const ended: string[] = [];
  return { sent, ended, send: (m: WatcherMessage) => sent.push(m), end: (reason: string) => ended.push(reason) };
}

describe('IdentityChangeHub', () => {
  it('sends a change to every watcher and resolves only once each has acknowledged it', async () => {
    const hub = new IdentityChangeHub(5000);
    const [a, b] = [watcher(), watcher()];
    const [ha, hb] = [hub.add(a), hub.add(b)];
    let delivered = false;
    const delivery = hub.deliver({ keyId: 'key_1' }).then(() => (delivered = true));
    expect(a.sent).toEqual([{ sequence: 1, keyId: 'key_1', accountId: '', heartbeat: false, synced: 0 }]);
    ha.acknowledge(1);
    await Promise.resolve();
    expect(delivered).toBe(false);
    hb.acknowledge(1);
    await delivery;
    expect(delivered).toBe(true);
  });

  it('ends the stream of a watcher that does not acknowledge in time, and goes on without it', async () => {
    const hub = new IdentityChangeHub(20);
    const silent = watcher();
    hub.add(silent);
    await hub.deliver({ accountId: 'acct_1' });
    expect(silent.ended).toHaveLength(1);
    expect(hub.size).toBe(0);
  });

  it('counts a watcher that leaves as done, heartbeats with the last sequence, and ends every stream on endAll', async () => {
    const hub = new IdentityChangeHub(5000);
    const leaving = watcher();
    const staying = watcher();
    const handle = hub.add(leaving);
    const stay = hub.add(staying);
    const delivery = hub.deliver({ keyId: 'key_2' });
    handle.remove();
    stay.acknowledge(1);
    await delivery;
    hub.heartbeat();
    expect(staying.sent.at(-1)).toEqual({ sequence: 1, keyId: '', accountId: '', heartbeat: true, synced: 0 });
    hub.endAll('stopping');
    expect([staying.ended, hub.size]).toEqual([['stopping'], 0]);
  });

  it('answers a sync with the heartbeat after the check that took it, to its watcher only', () => {
    const hub = new IdentityChangeHub(5000);
    const [asking, other] = [watcher(), watcher()];
    const handle = hub.add(asking);
    hub.add(other);
    const before = hub.takeSyncs();
    handle.sync(7);
    // A check that started before the sync arrived proves nothing about it.
    hub.heartbeat(before);
    expect(asking.sent.at(-1)).toMatchObject({ heartbeat: true, synced: 0 });
    const taken = hub.takeSyncs();
    hub.heartbeat(hub.takeSyncs());
    expect(asking.sent.at(-1)).toMatchObject({ heartbeat: true, synced: 0 });
    hub.heartbeat(taken);
    expect([asking.sent.at(-1), other.sent.at(-1)]).toEqual([
      { sequence: 0, keyId: '', accountId: '', heartbeat: true, synced: 7 },
      { sequence: 0, keyId: '', accountId: '', heartbeat: true, synced: 0 },
    ]);
  });

  it('does not answer the sync of a watcher gone before its check ended', () => {
    const hub = new IdentityChangeHub(5000);
    const gone = watcher();
    const handle = hub.add(gone);
    handle.sync(1);
    const taken = hub.takeSyncs();
    handle.remove();
    hub.heartbeat(taken);
    expect(gone.sent).toEqual([]);
  });
});
