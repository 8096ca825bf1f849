import {
  sendUnaryData,
  Server,
  ServerCredentials,
  ServerDuplexStream,
  ServerUnaryCall,
  status,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { authV1 } from '@gw/contracts';

type WatchCall = ServerDuplexStream<authV1.WatchIdentityChangesRequest, authV1.WatchIdentityChangesResponse>;

interface Watcher {
  call: WatchCall;
  applied: number;
  syncAsked: number;
  waiting: { sequence: number; done(): void }[];
}

/** What a FakeAuthServer plays: the connection ages of its server, and whether it answers syncs. */
export interface FakeAuthOptions {
  /** False plays an auth-service of the version before syncs: it ignores them. */
  answersSyncs: boolean;
  maxConnectionAgeMs: number;
  maxConnectionAgeGraceMs: number;
  beatMs: number;
}

/**
 * auth.v1 Authenticate and WatchIdentityChanges as one auth-service replica serves them, over
 * real gRPC on loopback, with its keys in memory: `revoke` sends the change on every stream and
 * resolves once each has acknowledged it (a stream that does not within 2 s is ended), a
 * heartbeat goes out every `beatMs` and answers the syncs asked before it (changes are sent as
 * they are made, so every earlier one has gone). Its connections are cut by their maximum age as
 * the real server's are, sooner.
 */
export class FakeAuthServer {
  /** Authenticate calls answered, by key id (unknown keys under ''). */
  readonly authenticated = new Map<string, number>();
  private readonly keys = new Map<string, { keyId: string; accountId: string; revoked: boolean }>();
  private readonly watchers = new Set<Watcher>();
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(options: FakeAuthOptions): Promise<FakeAuthServer> {
    const server = new Server({
      'grpc.max_connection_age_ms': options.maxConnectionAgeMs,
      'grpc.max_connection_age_grace_ms': options.maxConnectionAgeGraceMs,
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    const fake = new FakeAuthServer(server, port);
    server.addService(authV1.AuthService, fake.implementation(options.answersSyncs) as UntypedServiceImplementation);
    fake.timer = setInterval(() => fake.beat(), options.beatMs);
    return fake;
  }

  addKey(keySha256: string, keyId: string, accountId: string): void {
    this.keys.set(keySha256, { keyId, accountId, revoked: false });
  }

  /** Revokes a key; resolves once every stream open now has acknowledged the change, or is gone. */
  async revoke(keyId: string): Promise<void> {
    for (const key of this.keys.values()) if (key.keyId === keyId) key.revoked = true;
    const sequence = ++this.sequence;
    await Promise.all(
      [...this.watchers].map(
        (w) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => this.end(w, `change ${sequence} not acknowledged`), 2000);
            w.waiting.push({ sequence, done: () => (clearTimeout(timer), resolve()) });
            w.call.write({ sequence, keyId, accountId: '', heartbeat: false, synced: 0 });
          }),
      ),
    );
  }

  /** Change streams open now. */
  get streams(): number {
    return this.watchers.size;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const w of [...this.watchers]) this.end(w, 'stopping');
    this.server.forceShutdown();
  }

  private implementation(answersSyncs: boolean): Partial<authV1.AuthServer> {
    return {
      authenticate: (
        call: ServerUnaryCall<authV1.AuthenticateRequest, authV1.AuthenticateResponse>,
        callback: sendUnaryData<authV1.AuthenticateResponse>,
      ) => {
        const key = this.keys.get(call.request.keySha256);
        const keyId = key?.keyId ?? '';
        this.authenticated.set(keyId, (this.authenticated.get(keyId) ?? 0) + 1);
        const found = key !== undefined && !key.revoked;
        callback(null, { found, keyId: found ? keyId : '', accountId: found ? key.accountId : '', suspension: undefined, models: [] });
      },
      recordKeyUses: (
        _call: ServerUnaryCall<authV1.RecordKeyUsesRequest, authV1.RecordKeyUsesResponse>,
        callback: sendUnaryData<authV1.RecordKeyUsesResponse>,
      ) => callback(null, {}),
      watchIdentityChanges: (call: WatchCall) => {
        const w: Watcher = { call, applied: this.sequence, syncAsked: 0, waiting: [] };
        this.watchers.add(w);
        const close = () => this.remove(w);
        call.on('data', (request: authV1.WatchIdentityChangesRequest) => {
          w.applied = Math.max(w.applied, request.appliedSequence);
          w.waiting = w.waiting.filter((each) => (each.sequence <= w.applied ? (each.done(), false) : true));
          if (request.sync && answersSyncs) w.syncAsked = request.sync;
        });
        call.on('end', () => {
          close();
          call.end();
        });
        call.on('cancelled', close);
        call.on('error', close);
        call.on('close', close);
      },
    };
  }

  private beat(): void {
    for (const w of this.watchers) {
      w.call.write({ sequence: this.sequence, keyId: '', accountId: '', heartbeat: true, synced: w.syncAsked });
      w.syncAsked = 0;
    }
  }

  private end(w: Watcher, reason: string): void {
    if (!this.watchers.has(w)) return;
    this.remove(w);
    w.call.emit('error', { code: status.UNAVAILABLE, details: reason });
  }

  private remove(w: Watcher): void {
    if (!this.watchers.delete(w)) return;
    for (const each of w.waiting) each.done();
  }
}
