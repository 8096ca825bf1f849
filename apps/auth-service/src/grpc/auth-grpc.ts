import { authV1 } from '@gw/contracts';
import { auditActor, Logger, toAuditEntryMessage, toChainCheckMessage, unaryHandler } from '@gw/service-kit';
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
 * The grpc-js implementation of auth.v1.Auth: translation only, the rules are in AccountDirectory.
 * Who makes a change is the caller's verified identity, or the console's holder (auditActor).
 */
export function authGrpc(
  directory: AccountDirectory,
  hub: IdentityChangeHub,
  whatsapp: string,
  logger: Logger,
  now: () => Date = () => new Date(),
): authV1.AuthServer {
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

  return {
    authenticate: unaryHandler(logger, 'Authenticate', async (req: authV1.AuthenticateRequest): Promise<authV1.AuthenticateResponse> => {
      const owner = await directory.authenticate(req.keySha256);
      if (!owner) return { found: false, accountId: '', keyId: '', models: [] };
      return {
        found: true,
        accountId: owner.account.id,
        keyId: owner.keyId,
        suspension: suspensionOf(owner.account),
        models: owner.models.map(toModel),
      };
    }),
    createAccount: unaryHandler(logger, 'CreateAccount', async (req: authV1.CreateAccountRequest) => ({
      account: toAccount(await directory.createAccount(req.name)),
    })),
    getAccount: unaryHandler(logger, 'GetAccount', async (req: authV1.GetAccountRequest) => ({
      account: toAccount(await directory.getAccount(req.accountId)),
    })),
    createKey: unaryHandler(logger, 'CreateKey', async (req: authV1.CreateKeyRequest, metadata) => {
      const { record, value } = await directory.createKey(req.accountId, req.name, auditActor(metadata, req.note));
      return { info: toKeyInfo(record), key: value };
    }),
    listKeys: unaryHandler(logger, 'ListKeys', async (req: authV1.ListKeysRequest) => ({
      keys: (await directory.listKeys(req.accountId)).map(toKeyInfo),
    })),
    revokeKey: unaryHandler(logger, 'RevokeKey', async (req: authV1.RevokeKeyRequest, metadata) => {
      await directory.revokeKey(req.keyId, req.accountId, auditActor(metadata, req.note));
      return { keyId: req.keyId };
    }),
    listModels: unaryHandler(logger, 'ListModels', async (req: authV1.ListModelsRequest) => ({
      models: (await directory.listModels(req.accountId)).map(toModel),
    })),
    suspendAccount: unaryHandler(logger, 'SuspendAccount', async (req: authV1.SuspendAccountRequest, metadata) => ({
      account: toAccount(await directory.suspend(req.accountId, req.until, req.reason, auditActor(metadata, undefined).actor)),
    })),
    unsuspendAccount: unaryHandler(logger, 'UnsuspendAccount', async (req: authV1.UnsuspendAccountRequest, metadata) => ({
      account: toAccount(await directory.unsuspend(req.accountId, auditActor(metadata, req.note))),
    })),
    scheduleAccountDeletion: unaryHandler(
      logger,
      'ScheduleAccountDeletion',
      async (req: authV1.ScheduleAccountDeletionRequest, metadata) => ({
        account: toAccount(await directory.scheduleDeletion(req.accountId, auditActor(metadata, req.note))),
      }),
    ),
    grantModel: unaryHandler(logger, 'GrantModel', async (req: authV1.GrantModelRequest, metadata) => ({
      account: toAccount(await directory.grantModel(req.accountId, req.modelId, auditActor(metadata, req.note))),
    })),
    watchIdentityChanges: watchIdentityChanges(hub),
    recordKeyUses: unaryHandler(logger, 'RecordKeyUses', async (req: authV1.RecordKeyUsesRequest) => {
      directory.recordKeyUses(requireKeyUses(req.uses));
      return {};
    }),
    addModel: unaryHandler(logger, 'AddModel', async (req: authV1.AddModelRequest, metadata) => ({
      model: toModel(await directory.addModel(req.id, req.vision, auditActor(metadata, req.note))),
    })),
    listAuditEntries: unaryHandler(logger, 'ListAuditEntries', async (req: authV1.ListAuditEntriesRequest) => ({
      entries: (await directory.auditEntries(req.accountId, req.limit)).map(toAuditEntryMessage),
    })),
    verifyAuditTrail: unaryHandler(logger, 'VerifyAuditTrail', async () => ({
      check: toChainCheckMessage(await directory.verifyAuditTrail()),
    })),
    getModel: unaryHandler(logger, 'GetModel', async (req: authV1.GetModelRequest) => ({
      model: toModel(await directory.getModel(req.id)),
    })),
  };
}
