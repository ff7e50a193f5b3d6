/**
 * Who may use the web view: whoever holds this screen's random token. It is made in the screen's
 * memory when the server starts and is never written to the team folder, a log, or any process's
 * environment (docs/protocol.md §12); the person gets it from the screen (C-a W). The token comes once
 * in the URL (`?token=`), is swapped at once for an HttpOnly, SameSite=Strict cookie and a redirect that
 * drops it from the address bar, and every later request carries the cookie. Posts also carry a CSRF
 * token derived from the session token. Comparisons are constant-time. Pure apart from the random bytes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a request's credentials say. */
export type Verdict = { kind: 'ok' } | { kind: 'login'; location: string; cookie: string } | { kind: 'denied'; why: string };

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The cookies of a Cookie header, by name. */
export function cookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) out.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return out;
}

/** One screen's web credentials. */
export class WebAuth {
  /** The session token (base64url, 192 bits). */
  readonly token: string;
  /** The cookie's name: per port, since cookies are shared by every port of a host. */
  readonly cookieName: string;

  constructor(port: number, private readonly secure: boolean, token = randomBytes(24).toString('base64url')) {
    this.token = token;
    this.cookieName = `teamux_${port}`;
  }

  /** The CSRF token posts must carry. */
  csrf(): string {
    return createHmac('sha256', this.token).update('teamux csrf').digest('base64url');
  }

  /** True when `value` is this session's CSRF token. */
  csrfOk(value: string | undefined): boolean {
    return typeof value === 'string' && same(value, this.csrf());
  }

  /** Judge a request by its URL (path and query) and Cookie header. */
  check(url: URL, cookieHeader: string | undefined): Verdict {
    const offered = url.searchParams.get('token');
    if (offered !== null) {
      if (!same(offered, this.token)) return { kind: 'denied', why: 'wrong token in the URL' };
      url.searchParams.delete('token');
      const rest = url.searchParams.toString();
      const cookie = `${this.cookieName}=${this.token}; HttpOnly; SameSite=Strict; Path=/${this.secure ? '; Secure' : ''}`;
      return { kind: 'login', location: `${url.pathname}${rest ? `?${rest}` : ''}`, cookie };
    }
    const held = cookies(cookieHeader).get(this.cookieName);
    if (held === undefined) return { kind: 'denied', why: 'no token' };
    return same(held, this.token) ? { kind: 'ok' } : { kind: 'denied', why: 'wrong token in the cookie' };
  }
}
