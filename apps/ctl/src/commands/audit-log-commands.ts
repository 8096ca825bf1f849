import { readFileSync } from 'node:fs';
import { auditV1 } from '@gw/contracts';
import { CtlUsageError } from '../parse-args';
import { Command, CtlCheckFailed } from './command';
import { CtlClients } from '../ctl-clients';

/** How long a walk may take: it reads every entry of a chain. */
const VERIFY_TIMEOUT_MS = 300_000;

const SERVICES = ['auth-service', 'billing-service'] as const;

const toChain = (service: string, check: auditV1.ChainCheck | undefined, checkpoint: auditV1.Checkpoint | undefined) => ({
  service,
  entries: check?.entries ?? 0,
  ok: check?.ok ?? false,
  // Entries written before links were keyed pass only as the chain's prefix: said, so that it is seen.
  ...(check?.unkeyedEntries ? { unkeyedEntries: check.unkeyedEntries } : {}),
  ...(checkpoint ? { checkpoint: { seq: checkpoint.seq, at: checkpoint.at } } : {}),
  ...(check?.firstBad ? { firstBad: check.firstBad } : {}),
});

/** Both services walk their chains, each held to its checkpoint when one is given. */
async function walkChains(c: CtlClients, checkpoints: Map<string, auditV1.Checkpoint>) {
  const timeoutMs = Math.max(c.timeoutMs, VERIFY_TIMEOUT_MS);
  const [auth, billing] = await Promise.all([
    c.auth.verifyAuditTrail({ checkpoint: checkpoints.get('auth-service') }, { timeoutMs }),
    c.billing.verifyAuditTrail({ checkpoint: checkpoints.get('billing-service') }, { timeoutMs }),
  ]);
  return [
    { service: SERVICES[0], check: auth.check },
    { service: SERVICES[1], check: billing.check },
  ];
}

function checkpointOf(value: unknown, file: string): auditV1.Checkpoint {
  const c = value as Partial<Record<keyof auditV1.Checkpoint, unknown>>;
  const hex = (v: unknown, empty: boolean) => typeof v === 'string' && (/^[0-9a-f]{64}$/i.test(v) || (empty && v === ''));
  if (
    typeof c !== 'object' ||
    c === null ||
    !SERVICES.includes(c.service as (typeof SERVICES)[number]) ||
    !Number.isSafeInteger(c.seq) ||
    (c.seq as number) < 1 ||
    !hex(c.hash, false) ||
    !hex(c.mac, true) ||
    typeof c.at !== 'string'
  )
    throw new CtlUsageError(`--checkpoint ${file}: each checkpoint is {service, seq, hash, mac, at} as audit-log checkpoint prints it`);
  return { service: c.service as string, seq: c.seq as number, hash: c.hash as string, mac: c.mac as string, at: c.at };
}

/**
 * The checkpoints of FILE, by service: what `audit-log checkpoint` printed ({"checkpoints": [...]}),
 * an array of checkpoints, or one (a service's `audit checkpoint` log line will do).
 */
function readCheckpoints(file: string): Map<string, auditV1.Checkpoint> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CtlUsageError(`--checkpoint ${file} cannot be read as JSON: ${(err as Error).message}`);
  }
  const list = Array.isArray(parsed)
    ? parsed
    : Array.isArray((parsed as { checkpoints?: unknown })?.checkpoints)
      ? (parsed as { checkpoints: unknown[] }).checkpoints
      : [parsed];
  const byService = new Map<string, auditV1.Checkpoint>();
  for (const item of list) {
    const checkpoint = checkpointOf(item, file);
    const known = byService.get(checkpoint.service);
    // Of several for one chain, the latest holds the walk to the most.
    if (!known || checkpoint.seq > known.seq) byService.set(checkpoint.service, checkpoint);
  }
  if (byService.size === 0) throw new CtlUsageError(`--checkpoint ${file} holds no checkpoint`);
  return byService;
}

/**
 * `audit-log verify [--checkpoint FILE]`: auth-service and billing-service each walk their audit
 * trail, recomputing every entry's hash and checking its mac under AUDIT_KEY, and the report is
 * printed: every chain ok, or (exit 1) the first entry of a chain that was edited, is missing, does
 * not follow the one before it, or was not written with the key. With a checkpoint FILE (kept
 * outside the database), a chain must also still hold the checkpoint's link: a cut tail, a
 * rolled-back head or a rewritten prefix fails (checkpoint-cut, checkpoint-diverged).
 */
export const auditLogVerify: Command = async (flags, c) => {
  const file = flags.get('checkpoint');
  if (file === 'true' || file === '') throw new CtlUsageError('--checkpoint takes a file');
  const checkpoints = file === undefined ? new Map<string, auditV1.Checkpoint>() : readCheckpoints(file);
  const chains = (await walkChains(c, checkpoints)).map(({ service, check }) => toChain(service, check, checkpoints.get(service)));
  const report = { chains };
  if (chains.some((chain) => !chain.ok)) throw new CtlCheckFailed(report);
  return report;
};

/**
 * `audit-log checkpoint`: each chain walked (as verify does) and its last link printed as
 * {service, seq, hash, mac, at}, for the operator to keep outside the database and give to a later
 * `audit-log verify --checkpoint FILE`. A chain that does not verify gives none (exit 1, the report).
 */
export const auditLogCheckpoint: Command = async (_flags, c) => {
  const walked = await walkChains(c, new Map());
  if (walked.some(({ check }) => !check?.ok))
    throw new CtlCheckFailed({ chains: walked.map(({ service, check }) => toChain(service, check, undefined)) });
  return { checkpoints: walked.flatMap(({ check }) => (check?.head ? [check.head] : [])) };
};
