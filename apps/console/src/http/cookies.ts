import { Request, Response } from 'express';

/** The session cookie, and the one that carries the forms' token before anyone is signed in. */
export const SESSION_COOKIE = 'gw_session';
export const FORM_COOKIE = 'gw_form';

/** A cookie of the request, or undefined. */
export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Sets an HttpOnly, SameSite=Lax cookie for the whole console (Secure behind https). */
export function setCookie(res: Response, name: string, value: string, maxAgeMs: number, secure: boolean): void {
  res.append('Set-Cookie', `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}

export function clearCookie(res: Response, name: string, secure: boolean): void {
  setCookie(res, name, '', 0, secure);
}
