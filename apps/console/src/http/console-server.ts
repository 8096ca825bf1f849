import { createServer, Server } from 'node:http';
import express, { NextFunction, Request, Response } from 'express';
import { Logger } from '@gw/service-kit';
import { AuthClient } from '../clients/auth-client';
import { MoneyClients } from '../clients/money-clients';
import { StatementClient } from '../clients/statement-client';
import { HolderAccess } from '../domain/holder-access';
import { NotifierClient } from '../clients/notifier-client';
import { MailSwitchStore } from '../store/mail-switch-store';
import { activityRoutes } from './activity-routes';
import { CONSOLE_SCRIPT } from './console-script';
import { keyRoutes } from './key-routes';
import { mailRoutes } from './mail-routes';
import { moneyRoutes } from './money-routes';
import { html } from './html';
import { page } from './page';
import { refusalOf } from './refused-request';
import { spendAlertRoutes } from './spend-alert-routes';
import { signInRoutes } from './sign-in-routes';
import { statementRoutes } from './statement-routes';

/** What the web pages need. */
export interface ConsoleServerDeps {
  access: HolderAccess;
  auth: AuthClient;
  money: MoneyClients;
  statements: StatementClient;
  notifier: NotifierClient;
  mailSwitches: MailSwitchStore;
  sessionTtlMs: number;
  secureCookies: boolean;
  trustProxyHops: number;
  logger: Logger;
}

/**
 * The console's pages: server-rendered HTML, forms that work without JavaScript, one small
 * script. Headers keep other sites out: no framing, no inline script, and no Referer (an
 * invitation link's token must not leak to another site).
 */
export async function startConsoleServer(deps: ConsoleServerDeps, host: string, port: number): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  // req.ip: the client's address, behind this many proxies (each adds itself to X-Forwarded-For).
  app.set('trust proxy', deps.trustProxyHops);
  app.use((_req, res, next) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  app.use(express.urlencoded({ extended: false, limit: '16kb' }));
  app.get('/console.js', (_req, res) => res.type('application/javascript').setHeader('Cache-Control', 'max-age=300').send(CONSOLE_SCRIPT));
  app.get('/healthz', (_req, res) => res.type('text/plain').send('ok'));
  app.use(signInRoutes(deps));
  app.use(keyRoutes(deps.access, deps.auth, deps));
  app.use(spendAlertRoutes(deps.access, deps.money));
  app.use(moneyRoutes(deps.access, deps.auth, deps.money, deps.logger));
  app.use(activityRoutes(deps.access, deps.auth, deps.money));
  app.use(mailRoutes(deps.access, deps.notifier, deps.mailSwitches, deps.logger));
  app.use(statementRoutes(deps.access, deps.statements));
  app.use((_req, res) =>
    res
      .status(404)
      .type('html')
      .send(
        page(
          'Not found',
          html`<section>
            <p>There is no such page. <a href="/keys">Your keys</a></p>
          </section>`,
        ).markup,
      ),
  );
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const refusal = refusalOf(err);
    if (refusal) {
      // No path: an invitation's path holds its token.
      deps.logger.info('console request refused', { method: req.method, status: refusal.status, reason: refusal.reason });
      return res
        .status(refusal.status)
        .type('html')
        .send(page(refusal.title, html`<section><p>${refusal.message}</p></section>`).markup);
    }
    deps.logger.error('console page failed', { err });
    res
      .status(500)
      .type('html')
      .send(
        page('Something went wrong', html`<section><p>The console could not do that just now. Try again in a moment.</p></section>`).markup,
      );
  });
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
