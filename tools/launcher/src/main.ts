import { join } from 'node:path';
import { ensureDevCertificates } from '@gw/dev-pki';
import { ensureDemoAccount } from './demo-account';
import { inviteDemoHolder } from './demo-invite';
import { planLaunch } from './launch-plan';
import { watchParent } from './parent-watch';
import { portProblem } from './port-check';
import { ProcessGroup } from './process-group';

const READY_TIMEOUT_MS = 60_000;
const say = (line: string) => process.stdout.write(`[launcher       ] ${line}\n`);

async function main(): Promise<void> {
  const plan = planLaunch(process.env);
  const refusal = await portProblem(
    plan.bindHost,
    plan.processes.flatMap((p) => p.ports),
  );
  if (refusal) {
    say(`not started: ${refusal}`);
    process.exit(1);
  }
  const stopOrder = [...plan.processes].reverse().map((p) => p.app);
  let stopping = false;
  const stop = (why: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    say(`${why}; stopping everything`);
    void group.stopAll(stopOrder).then(() => process.exit(exitCode));
  };
  const group = new ProcessGroup((app, code) => stop(`${app} exited unexpectedly (code ${code})`, 1));
  // npm passes SIGINT and SIGTERM on to the launcher (its script `exec`s it); a closed terminal hangs up.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal, 0));
  watchParent(() => stop('the process that started the launcher is gone', 0));

  try {
    if (plan.tlsRoot) {
      const made = ensureDevCertificates(plan.tlsRoot);
      if (made.length) say(`made development certificates under ${plan.tlsRoot} for ${made.join(', ')}`);
    }
    const start = async (app: string) => {
      await group.start(app, join(__dirname, '..', '..', 'apps', app, 'main.js'), plan.env, READY_TIMEOUT_MS).catch((err: Error) => {
        throw new Error(`${app}: ${err.message}`);
      });
      say(`${app} is ready`);
    };
    // Each process after the one before it is ready, unless it may start with it.
    const steps: string[][] = [];
    for (const { app, withPrevious } of plan.processes) {
      if (withPrevious && steps.length) steps[steps.length - 1].push(app);
      else steps.push([app]);
    }
    for (const step of steps) await Promise.all(step.map(start));
    await announce(plan);
  } catch (err) {
    stop(`start failed: ${(err as Error).message}`, 1);
  }
}

async function announce(plan: ReturnType<typeof planLaunch>): Promise<void> {
  const demo = await ensureDemoAccount(plan.dataDir, plan.authAddr, plan.billingAddr, plan.ctlSecurity);
  if (demo.key) {
    say(`created demo account ${demo.accountId} with 10 LYD`);
    say(`demo API key (shown once, keep it): ${demo.key}`);
  }
  const invite = await inviteDemoHolder(plan.consoleAddr, demo.accountId, plan.ctlSecurity);
  say(
    `the web console is at ${plan.consoleUrl}; the demo account's holder sets a password at ${invite.link} (works once, until ${invite.expires})`,
  );
  say(
    plan.env.SMTP_URL
      ? "holders' mail goes out through SMTP_URL"
      : `holders' mail is kept in the notifier's outbox, not sent (SMTP_URL unset): the console shows it at ${plan.consoleUrl}/mail`,
  );
  say(`the API is at ${plan.edgeUrl}  (Ctrl-C stops everything)`);
  say(
    `try: curl ${plan.edgeUrl}/chat/completions -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -d '{"model":"vendor-v4-flash","messages":[{"role":"user","content":"Hello"}]}'`,
  );
}

void main();
