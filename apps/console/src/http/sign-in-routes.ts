import { Request, Response, Router } from 'express';
import { HolderAccess, KNOWN_DEVICE_TTL_MS, OpenedSession } from '../domain/holder-access';
import { sameSecret } from '../domain/secret-token';
import { formToken, formTokenMatches } from './anonymous-forms';
import { clearCookie, cookieOf, DEVICE_COOKIE, SESSION_COOKIE, setCookie } from './cookies';
import { html } from './html';
import { page } from './page';
import { refuseForm } from './signed-in';

/** What the sign-in pages need. */
export interface SignInDeps {
  access: HolderAccess;
  sessionTtlMs: number;
  secureCookies: boolean;
}

const field = (req: Request, name: string): string => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/** GET/POST /sign-in, /invite/:token (set a password) and POST /sign-out. */
export function signInRoutes({ access, sessionTtlMs, secureCookies }: SignInDeps): Router {
  const router = Router();
  const signInForm = (req: Request, res: Response, status: number, message?: string, email = '') =>
    res
      .status(status)
      .type('html')
      .send(
        page(
          'Sign in',
          html`<section>
            <form method="post" action="/sign-in">
              <input type="hidden" name="_csrf" value="${formToken(req, res, secureCookies)}" />
              ${message ? html`<p class="error" role="alert">${message}</p>` : ''}
              <label for="email">Email</label
              ><input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
              <label for="password">Password</label
              ><input id="password" name="password" type="password" autocomplete="current-password" required />
              <button type="submit">Sign in</button>
            </form>
          </section>`,
        ).markup,
      );
  const startSession = (res: Response, opened: OpenedSession) => {
    setCookie(res, SESSION_COOKIE, opened.sessionToken, sessionTtlMs, secureCookies);
    setCookie(res, DEVICE_COOKIE, opened.deviceToken, KNOWN_DEVICE_TTL_MS, secureCookies);
    res.redirect(303, '/keys');
  };

  router.get('/sign-in', (req, res) => signInForm(req, res, 200));
  router.post('/sign-in', async (req, res) => {
    if (!formTokenMatches(req)) return refuseForm(res);
    const email = field(req, 'email');
    const outcome = await access.signIn(email, field(req, 'password'), req.ip ?? 'unknown', cookieOf(req, DEVICE_COOKIE));
    if (outcome.kind === 'signed-in') return startSession(res, outcome);
    if (outcome.kind === 'limited') {
      const minutes = Math.ceil(outcome.retryAfterMs / 60_000);
      res.setHeader('Retry-After', String(Math.ceil(outcome.retryAfterMs / 1000)));
      return signInForm(req, res, 429, `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, email);
    }
    signInForm(req, res, 401, 'Wrong email or password.', email);
  });

  const passwordForm = (req: Request, res: Response, status: number, email: string, message?: string) =>
    res
      .status(status)
      .type('html')
      .send(
        page(
          'Set your password',
          html`<section>
            <p>Choose the password for <strong>${email}</strong>. This link works once.</p>
            <form method="post" action="${req.originalUrl}">
              <input type="hidden" name="_csrf" value="${formToken(req, res, secureCookies)}" />
              ${message ? html`<p class="error" role="alert">${message}</p>` : ''}
              <input type="hidden" name="username" autocomplete="username" value="${email}" />
              <label for="password">New password (at least 10 characters)</label
              ><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="256" />
              <button type="submit">Set password and sign in</button>
            </form>
          </section>`,
        ).markup,
      );
  const linkUsed = (res: Response) =>
    res
      .status(410)
      .type('html')
      .send(
        page(
          'Link no longer valid',
          html`<section>
            <p>This invitation link has been used or has expired. Ask the operator for a new one, or <a href="/sign-in">sign in</a>.</p>
          </section>`,
        ).markup,
      );

  router.get('/invite/:token', async (req, res) => {
    const email = await access.inviteEmail(req.params.token);
    if (!email) return linkUsed(res);
    passwordForm(req, res, 200, email);
  });
  router.post('/invite/:token', async (req, res) => {
    if (!formTokenMatches(req)) return refuseForm(res);
    const email = await access.inviteEmail(req.params.token);
    if (!email) return linkUsed(res);
    const accepted = await access.acceptInvite(req.params.token, field(req, 'password'));
    if (!accepted) return linkUsed(res);
    if ('problem' in accepted) return passwordForm(req, res, 400, email, accepted.problem);
    startSession(res, accepted);
  });

  router.post('/sign-out', async (req, res) => {
    const token = cookieOf(req, SESSION_COOKIE);
    const session = token ? await access.session(token) : undefined;
    if (session && !sameSecret(session.csrfToken, field(req, '_csrf'))) return refuseForm(res);
    if (token && session) await access.signOut(token);
    clearCookie(res, SESSION_COOKIE, secureCookies);
    res.redirect(303, '/sign-in');
  });
  return router;
}
