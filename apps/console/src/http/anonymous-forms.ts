import { Request, Response } from 'express';
import { newSecretToken, sameSecret } from '../domain/secret-token';
import { cookieOf, FORM_COOKIE, setCookie } from './cookies';

const FORM_COOKIE_MS = 3600_000;

/**
 * Forms posted before anyone is signed in (sign-in, setting a password) are guarded by a token
 * that is both in a cookie and in the form: a page of another site can make a browser post,
 * but cannot read the cookie to put its token in the form.
 */
export function formToken(req: Request, res: Response, secureCookies: boolean): string {
  const existing = cookieOf(req, FORM_COOKIE);
  if (existing) return existing;
  const { token } = newSecretToken();
  setCookie(res, FORM_COOKIE, token, FORM_COOKIE_MS, secureCookies);
  return token;
}

/** Whether a posted anonymous form carries its cookie's token. */
export function formTokenMatches(req: Request): boolean {
  const cookie = cookieOf(req, FORM_COOKIE);
  return cookie !== undefined && sameSecret(cookie, (req.body as Record<string, unknown> | undefined)?._csrf);
}
