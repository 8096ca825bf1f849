import { NextFunction, Request, RequestHandler, Response } from 'express';
import { HolderAccess } from '../domain/holder-access';
import { sameSecret } from '../domain/secret-token';
import { SessionRecord } from '../store/console-store';
import { cookieOf, SESSION_COOKIE } from './cookies';

/** 403 for a form without its token: it expired, or a page of another site posted it. */
export function refuseForm(res: Response): void {
  res.status(403).type('text/plain').send('This form has expired or did not come from the console. Reload the page and try again.');
}

/** The session of a signed-in request, as `signedIn` left it. */
export const sessionOf = (res: Response): SessionRecord => res.locals.session as SessionRecord;

/**
 * Lets through only a request with a live session (else to the sign-in page); a form it posts
 * must carry the session's token (`_csrf`), else 403: a page of another site cannot post here.
 */
export function signedIn(access: HolderAccess): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = cookieOf(req, SESSION_COOKIE);
    (token ? access.session(token) : Promise.resolve(undefined)).then((session) => {
      if (!session) return res.redirect(303, '/sign-in');
      if (req.method === 'POST' && !sameSecret(session.csrfToken, (req.body as Record<string, unknown> | undefined)?._csrf)) {
        return refuseForm(res);
      }
      res.locals.session = session;
      next();
    }, next);
  };
}
