import { authV1 } from '@gw/contracts';
import {
  auditActor,
  HolderEventFeed,
  Logger,
  RpcHandlers,
  rpcService,
  ServedService,
  serverChain,
  toAuditEntryMessage,
  toChainCheckMessage,
  fromCheckpointMessage,
  watchHolderEvents,
} from '@gw/service-kit';
import { AccountDirectory, isSuspendedNow } from '../domain/account-directory';
import { IdentityChangeHub } from '../domain/identity-change-hub';
import { requireKeyUses } from '../domain/request-fields';
import { AccountRecord, KeyRecord, ModelRecord } from '../store/identity-records';
import { watchIdentityChanges } from './watch-identity-changes';

const toKeyInfo = (k: KeyRecord): authV1.KeyInfo => ({
  id: k.id,
  prefix: k.prefix,
  name: k.name,
  created: k.createdAt.toISOString(),
  lastUsed: k.lastUsedAt ? k.lastUsedAt.toISOString() : '',
});
const toModel = (m: ModelRecord): authV1.Model => ({
  id: m.id,
  vision: m.vision,
  created: Math.floor(m.createdAt.getTime() / 1000),
  public: m.public,
});

/**
 * auth.v1.Auth: translation only, the rules are in AccountDirectory; every call passes the server chain.
 * Who makes a change is the caller's verified identity, or the console's holder (auditActor).
 */
export function authGrpc(
  directory: AccountDirectory,
  hub: IdentityChangeHub,
  holderEvents: HolderEventFeed,
  whatsapp: string,
  logger: Logger,
  now: () => Date = () => new Date(),
): ServedService {
  const suspensionOf = (a: AccountRecord): authV1.Suspension | undefined =>
    isSuspendedNow(a, now())
      ? { until: a.suspendedUntil ? a.suspendedUntil.toISOString() : '', reason: a.suspensionReason ?? '', whatsapp }
      : undefined;
  const toAccount = (a: AccountRecord): authV1.Account => ({
    accountId: a.id,
    name: a.name,
    suspension: suspensionOf(a),
    grantedModels: a.grantedModels,
    deletionScheduled: a.deletionScheduledAt !== null,
  });

  const handlers: RpcHandlers<authV1.AuthService> = {
    async authenticate(req) {
      const owner = await directory.authenticate(req.keySha256);
      if (!owner) return { found: false, accountId: '', keyId: '', models: [] };
      return {
        found: true,
        accountId: owner.account.id,
        keyId: owner.keyId,
        suspension: suspensionOf(owner.account),
        models: owner.models.map(toModel),
      };
    },
    createAccount: async (req) => ({ account: toAccount(await directory.createAccount(req.name)) }),
    getAccount: async (req) => ({ account: toAccount(await directory.getAccount(req.accountId)) }),
    async createKey(req, { metadata }) {
      const { record, value } = await directory.createKey(req.accountId, req.name, auditActor(metadata, req.note));
      return { info: toKeyInfo(record), key: value };
    },
    listKeys: async (req) => ({ keys: (await directory.listKeys(req.accountId)).map(toKeyInfo) }),
    async revokeKey(req, { metadata }) {
      await directory.revokeKey(req.keyId, req.accountId, auditActor(metadata, req.note));
      return { keyId: req.keyId };
    },
    listModels: async (req) => ({ models: (await directory.listModels(req.accountId)).map(toModel) }),
    suspendAccount: async (req, { metadata }) => ({
      account: toAccount(await directory.suspend(req.accountId, req.until, req.reason, auditActor(metadata, undefined).actor)),
    }),
    unsuspendAccount: async (req, { metadata }) => ({
      account: toAccount(await directory.unsuspend(req.accountId, auditActor(metadata, req.note))),
    }),
    scheduleAccountDeletion: async (req, { metadata }) => ({
      account: toAccount(await directory.scheduleDeletion(req.accountId, auditActor(metadata, req.note))),
    }),
    grantModel: async (req, { metadata }) => ({
      account: toAccount(await directory.grantModel(req.accountId, req.modelId, auditActor(metadata, req.note))),
    }),
    async recordKeyUses(req) {
      directory.recordKeyUses(requireKeyUses(req.uses));
      return {};
    },
    addModel: async (req, { metadata }) => ({
      model: toModel(await directory.addModel(req.id, req.vision, auditActor(metadata, req.note))),
    }),
    listAuditEntries: async (req) => ({
      entries: (await directory.auditEntries(req.accountId, req.limit)).map(toAuditEntryMessage),
    }),
    verifyAuditTrail: async (req) => ({
      check: toChainCheckMessage(await directory.verifyAuditTrail(fromCheckpointMessage(req.checkpoint)), 'auth-service'),
    }),
    getModel: async (req) => ({ model: toModel(await directory.getModel(req.id)) }),
  };

  return rpcService(authV1.AuthService, handlers, serverChain(logger), () => ({
    watchIdentityChanges: watchIdentityChanges(hub),
    watchHolderEvents: watchHolderEvents(holderEvents),
  }));
}
