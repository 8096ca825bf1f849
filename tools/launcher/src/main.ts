import { join } from 'node:path';
import { ensureDevCertificates } from '@gw/dev-pki';
import { waitReady } from '@gw/service-kit';
import { ensureDemoAccount } from './demo-account';
import { inviteDemoHolder } from './demo-invite';
import { planLaunch } from './launch-plan';
import { ProcessGroup } from './process-group';

const READY_TIMEOUT_MS = 60_000;
const say = (line: string) => process.stdout.write(`[launcher       ] ${line}\n`);

async function main(): Promise<void> {
  const plan = planLaunch(process.env);
  const stopOrder = [...plan.processes].reverse().map((p) => p.app);
  const group = new ProcessGroup((app, code) => {
    say(`${app} exited unexpectedly (code ${code}); stopping everything`);
    void group.stopAll(stopOrder).then(() => process.exit(1));
  });
  let stopping = false;
  const stop = (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping');
    void group.stopAll(stopOrder).then(() => process.exit(exitCode));
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));

  try {
    if (plan.tlsRoot) {
      const made = ensureDevCertificates(plan.tlsRoot);
      if (made.length) say(`made development certificates under ${plan.tlsRoot} for ${made.join(', ')}`);
    }
    for (const { app, readiness } of plan.processes) {
      group.start(app, join(__dirname, '..', '..', 'apps', app, 'main.js'), plan.env);
      await waitReady(readiness, READY_TIMEOUT_MS, () => group.isRunning(app)).catch((err: Error) => {
        throw new Error(`${app}: ${err.message}`);
      });
      say(`${app} is ready`);
    }
    await announce(plan);
  } catch (err) {
    say(`start failed: ${(err as Error).message}`);
    stop(1);
  }
}

async function announce(plan: ReturnType<typeof planLaunch>): Promise<void> {
  const demo = await ensureDemoAccount(plan.dataDir, plan.authAddr, plan.billingAddr, plan.ctlSecurity);
  if (demo.key) {
    say(`created demo account ${demo.accountId} with 10 LYD`);
    say(`demo API key (shown once, keep it): ${demo.key}`);
  }
  const invite = await inviteDemoHolder(plan.consoleAddr, demo.accountId, plan.ctlSecurity);
  say(`the web console is at ${plan.consoleUrl}; the demo account's holder sets a password at ${invite.link} (works once, until ${invite.expires})`);
  say(`the API is at ${plan.edgeUrl}  (Ctrl-C stops everything)`);
  say(`try: curl ${plan.edgeUrl}/chat/completions -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -d '{"model":"vendor-v4-flash","messages":[{"role":"user","content":"Hello"}]}'`);
}

void main();
