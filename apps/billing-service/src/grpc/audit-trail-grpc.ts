import { status } from '@grpc/grpc-js';
import { MAX_FREE_TIER_TOKENS } from '@gw/bounds';
import { billingV1 } from '@gw/contracts';
import {
  fromCheckpointMessage,
  MAX_AUDIT_REASON_LENGTH,
  optionalId,
  requireCount,
  requireId,
  RpcError,
  RpcHandlers,
  toAuditEntryMessage,
  toChainCheckMessage,
} from '@gw/service-kit';
import { PgBillingAudit } from '../store/pg-billing-audit';

/** The most entries one ListAuditEntries answers. */
const MAX_AUDIT_PAGE = 200;
/** The longest actor quota-service may name: a certificate identity. */
const MAX_ACTOR_LENGTH = 64;
const FREE_TIER_SETTINGS = ['daily_tokens', 'pool_tokens', 'paused', 'enabled'];

type AuditMethods = Pick<RpcHandlers<billingV1.BillingService>, 'listAuditEntries' | 'verifyAuditTrail' | 'recordFreeTierChange'>;

/** billing.v1's audit-trail methods: an account's entries (console), the walk (ctl), and quota-service's free-tier changes. */
export function auditTrailGrpc(audit: PgBillingAudit): AuditMethods {
  return {
    async listAuditEntries(req) {
      const entries = await audit.entries(requireId('account_id', req.accountId), requireCount('limit', req.limit, MAX_AUDIT_PAGE, 1));
      return { entries: entries.map(toAuditEntryMessage) };
    },
    verifyAuditTrail: async (req) => ({
      check: toChainCheckMessage(await audit.verify(fromCheckpointMessage(req.checkpoint)), 'billing-service'),
    }),
    async recordFreeTierChange(req) {
      if (req.changed.some((name) => !FREE_TIER_SETTINGS.includes(name)))
        throw new RpcError(status.INVALID_ARGUMENT, `changed names only ${FREE_TIER_SETTINGS.join(', ')}`);
      const change = {
        dailyTokens: requireCount('daily_tokens', req.dailyTokens, MAX_FREE_TIER_TOKENS),
        poolTokens: requireCount('pool_tokens', req.poolTokens, MAX_FREE_TIER_TOKENS),
        paused: req.paused,
        enabled: req.enabled,
        changed: [...new Set(req.changed)],
      };
      // The operator asked quota-service: the actor is whom quota-service names, not quota-service itself.
      const by = {
        actor: requireId('actor', req.actor, MAX_ACTOR_LENGTH),
        reason: optionalId('reason', req.reason, MAX_AUDIT_REASON_LENGTH),
      };
      return { seq: await audit.recordFreeTierChange(change, by) };
    },
  };
}
