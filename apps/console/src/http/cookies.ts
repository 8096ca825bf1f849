import { Request, Response } from 'express';

/**
 * The session cookie, the one that carries the forms' token before anyone is signed in, and the
 * one that marks a browser its holder signed in from (guessing does not slow that browser).
 */
export const SESSION_COOKIE = 'gw_session';
export const FORM_COOKIE = 'gw_form';
export const DEVICE_COOKIE = 'gw_device';

/** A cookie of the request, or undefined; a value that is not valid percent-encoding is no cookie. */
export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decoded(part.slice(eq + 1).trim());
  }
  return undefined;
}

function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** Sets an HttpOnly, SameSite=Lax cookie for the whole console (Secure behind https). */
export function setCookie(res: Response, name: string, value: string, maxAgeMs: number, secure: boolean): void {
  res.append(
    'Set-Cookie',
    `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
}

export function clearCookie(res: Response, name: string, secure: boolean): void {
  setCookie(res, name, '', 0, secure);
}
