/**
 * The web view's server, run by the screen: the team, a request in full with its answer forms, the
 * board, traffic, events and timeline as pages, a Server-Sent Events stream that pushes a page's fresh
 * body when the team changes (from the same team watch the sidebar draws from; no polling, a reconnect
 * with Last-Event-ID gets the current body only if it changed), and answers posted from a page, which
 * go through the same signed path as C-a a / C-a r (the screen's own key). Thin: routing, headers, the
 * stream's connections; the pages are pure (web/pages.ts, web/lists.ts), the credentials web/auth.ts.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Activity } from '../protocol/activity.js';
import type { ProtocolRequest, TeamEvent } from '../protocol/types.js';
import { waitsForOperator } from '../protocol/operator.js';
import type { SidebarData } from '../mux/sidebar-data.js';
import { SCRIPT, STYLESHEET } from './assets.js';
import { WebAuth } from './auth.js';
import { html, type Html } from './html.js';
import { boardBody, diffBody, eventsBody, PAGE_ROWS, timelineBody, trafficBody, type DiffView } from './lists.js';
import { page, requestBody, teamBody, type Shell } from './pages.js';
import { requestTitle, revisionOf, type WebData } from './view.js';

/** What the server reads the team from and answers through (the screen provides it). */
export interface WebSource {
  snapshot(): SidebarData;
  /** Called after every change of the snapshot. */
  onChange(listener: () => void): { dispose(): void };
  /** Each member's activity as the screen shows it. */
  activities?(): ReadonlyMap<string, Activity>;
  /** The newest `limit` events of the team's log, oldest first. */
  events(limit: number): Promise<TeamEvent[]>;
  /** A member's diff against base (worktrees), or why there is none; absent: the team has no worktrees. */
  diff?(member: string): Promise<{ ok: true; value: DiffView } | { ok: false; message: string }>;
  /** Members that have a worktree (their roster rows link their diff). */
  worktreeMembers?(): Promise<readonly string[]>;
  /** Answer a request as the operator (signed by the screen's key), as C-a a / C-a r do. */
  answer(request: string, to: string, approve: boolean, text: string): Promise<{ ok: true } | { ok: false; message: string }>;
  log: { info(message: string): void; warn(message: string): void };
}

export interface WebOptions {
  /** 0: any free port (tests). */
  port: number;
  listen: string;
  tls?: { cert: Buffer; key: Buffer } | null;
}

/** The largest answer form accepted. */
const MAX_POST_BYTES = 16 * 1024;
/** The longest feedback accepted (the same bound as the screen's prompt). */
export const MAX_FEEDBACK = 4000;
/** A comment line on every open stream this often, so proxies and phones keep it open. */
const KEEPALIVE_MS = 25_000;

const HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

/** One open event stream: which page it shows and what it was sent last. */
interface Stream {
  res: http.ServerResponse;
  path: string;
  last: string | null;
}

/** The screen's web view. */
export class WebServer {
  // the listening server and the credentials, once started
  private server: http.Server | https.Server | null = null;
  private auth: WebAuth | null = null;
  // open event streams, the change counter their ids come from, and the keepalive timer
  private readonly streams = new Set<Stream>();
  private version = 0;
  private keepalive: NodeJS.Timeout | null = null;
  private subscription: { dispose(): void } | null = null;
  // a push already scheduled (changes arriving together are rendered once)
  private pushing = false;

  constructor(private readonly source: WebSource, private readonly opts: WebOptions) {}

  /** Listen; resolves with the address (rejects with a message when the port cannot be had). */
  async start(): Promise<{ host: string; port: number }> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      this.route(req, res).catch((err: Error) => {
        this.source.log.warn(`web: ${req.method} ${new URL(req.url ?? '/', 'http://x').pathname} failed: ${err.message}`);
        if (!res.headersSent) this.send(res, 500, 'text/plain; charset=utf-8', 'internal error');
        else res.end();
      });
    };
    const server = this.opts.tls ? https.createServer({ cert: this.opts.tls.cert, key: this.opts.tls.key }, handler) : http.createServer(handler);
    server.headersTimeout = 10_000;
    server.requestTimeout = 15_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code === 'EADDRINUSE' ? `port ${this.opts.port} on ${this.opts.listen} is in use` : err.message)));
      server.listen(this.opts.port, this.opts.listen, () => resolve());
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    this.auth = new WebAuth(port, !!this.opts.tls);
    this.subscription = this.source.onChange(() => this.changed());
    this.keepalive = setInterval(() => { for (const s of this.streams) s.res.write(': keepalive\n\n'); }, KEEPALIVE_MS);
    this.keepalive.unref();
    return { host: this.opts.listen, port };
  }

  /** The URL a person opens, with the token (shown only on the person's own terminal); `path` to link one page. */
  url(path = '/'): string {
    if (!this.server || !this.auth) throw new Error('the web view is not started');
    const port = (this.server.address() as AddressInfo).port;
    const host = this.opts.listen.includes(':') ? `[${this.opts.listen}]` : this.opts.listen === '0.0.0.0' ? '127.0.0.1' : this.opts.listen;
    return `${this.opts.tls ? 'https' : 'http'}://${host}:${port}${path}${path.includes('?') ? '&' : '?'}token=${this.auth.token}`;
  }

  /** A link to a page without the token (for notifications: a browser that logged in once opens it). */
  link(path = '/'): string {
    return this.url(path).replace(/[?&]token=[^&]*$/, '');
  }

  /** Stop listening and close every stream. */
  async dispose(): Promise<void> {
    this.subscription?.dispose();
    if (this.keepalive) clearInterval(this.keepalive);
    for (const s of this.streams) s.res.end();
    this.streams.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections?.(); });
  }

  private data(): WebData {
    return { snapshot: this.source.snapshot(), activities: this.source.activities?.(), now: Date.now() };
  }

  private shell(path: string): Shell {
    return { team: this.source.snapshot().team, path, css: STYLESHEET.url, js: SCRIPT.url };
  }

  private send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
    res.writeHead(status, { ...HEADERS, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra });
    res.end(body);
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://teamux');
    if (req.method === 'GET' && (url.pathname === STYLESHEET.url || url.pathname === SCRIPT.url)) {
      const a = url.pathname === STYLESHEET.url ? STYLESHEET : SCRIPT;
      return this.send(res, 200, a.type, a.body, { 'Cache-Control': 'public, max-age=31536000, immutable' });
    }
    const verdict = this.auth!.check(url, req.headers.cookie);
    if (verdict.kind === 'denied') {
      // The log names the path and why, never the token offered.
      this.source.log.warn(`web: refused ${req.method} ${url.pathname} from ${req.socket.remoteAddress ?? '?'}: ${verdict.why}`);
      return this.send(res, 401, 'text/plain; charset=utf-8', 'teamux: this page needs the link shown by the screen (C-a W)\n');
    }
    if (verdict.kind === 'login') return this.send(res, 303, 'text/plain; charset=utf-8', '', { Location: verdict.location, 'Set-Cookie': verdict.cookie });
    if (req.method === 'POST') return this.post(req, res, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') return this.send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { Allow: 'GET, POST' });
    if (url.pathname === '/stream') return this.stream(req, res, url.searchParams.get('page') ?? '/');
    const body = await this.body(`${url.pathname}${url.search}`);
    if (!body) return this.send(res, 404, 'text/html; charset=utf-8', page(this.shell(url.pathname), 'not found', html`<p>No such page. <a href="/">The team</a></p>`).text);
    return this.send(res, 200, 'text/html; charset=utf-8', page(this.shell(`${url.pathname}${url.search}`), body.title, body.html).text);
  }

  /** A page's title and body by its path and query; null: no such page. */
  private async body(path: string): Promise<{ title: string; html: Html } | null> {
    const url = new URL(path, 'http://teamux');
    const n = Number(url.searchParams.get('page') ?? '1') || 1;
    const d = this.data();
    switch (url.pathname) {
      case '/': return { title: 'team', html: teamBody({ ...d, worktrees: new Set((await this.source.worktreeMembers?.()) ?? []) }) };
      case '/board': return { title: 'board', html: boardBody(d) };
      case '/timeline': return { title: 'timeline', html: timelineBody(d) };
      case '/traffic': return { title: 'traffic', html: trafficBody(n === 1 ? d.snapshot.traffic : await this.source.events(n * PAGE_ROWS * 4), n) };
      case '/events': return { title: 'events', html: eventsBody(await this.source.events(n * PAGE_ROWS), n) };
    }
    const member = /^\/members\/([^/]+)\/diff$/.exec(url.pathname);
    if (member && this.source.diff) {
      const name = decodeURIComponent(member[1]!);
      const got = await this.source.diff(name);
      return { title: `${name}'s diff`, html: got.ok ? diffBody(got.value) : html`<h2>${name}'s work</h2><p class="dim">${got.message}</p>` };
    }
    const m = /^\/requests\/([^/]+)$/.exec(url.pathname);
    const r = m ? d.snapshot.requests.find((x) => x.id === decodeURIComponent(m[1]!)) : undefined;
    if (!r) return null;
    return { title: requestTitle(r), html: requestBody(d, r, { csrf: this.auth!.csrf(), notice: url.searchParams.get('done') }) };
  }

  private async stream(req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> {
    res.writeHead(200, { ...HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    const s: Stream = { res, path, last: null };
    this.streams.add(s);
    req.on('close', () => this.streams.delete(s));
    res.write('retry: 2000\n\n');
    // A reconnect that saw the current version needs nothing; any other gets the current body now.
    if (req.headers['last-event-id'] !== String(this.version)) await this.push(s);
    else s.last = (await this.body(path))?.html.text ?? null;
  }

  private async push(s: Stream): Promise<void> {
    const body = (await this.body(s.path))?.html.text ?? '';
    if (body === s.last) return;
    s.last = body;
    s.res.write(`id: ${this.version}\nevent: page\n${body.split('\n').map((l) => `data: ${l}`).join('\n')}\n\n`);
  }

  private changed(): void {
    this.version++;
    if (this.pushing || this.streams.size === 0) return;
    this.pushing = true;
    queueMicrotask(() => {
      this.pushing = false;
      for (const s of this.streams) this.push(s).catch((err: Error) => this.source.log.warn(`web: stream ${s.path}: ${err.message}`));
    });
  }

  private async post(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const m = /^\/requests\/([^/]+)\/answer$/.exec(url.pathname);
    if (!m) return this.send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    // A post from another site's page never gets here with the cookie (SameSite=Strict); an Origin that is not this one is refused too.
    const origin = req.headers.origin;
    if (origin && origin !== 'null' && new URL(origin).host !== req.headers.host) return this.refuse(res, 403, `a post from another origin (${origin})`);
    const form = await readForm(req);
    if (!form) return this.refuse(res, 413, 'an answer larger than 16 KiB');
    if (!this.auth!.csrfOk(form.get('csrf') ?? undefined)) return this.refuse(res, 403, 'a post without this session\'s CSRF token');
    const id = decodeURIComponent(m[1]!);
    const r: ProtocolRequest | undefined = this.source.snapshot().requests.find((x) => x.id === id);
    if (!r) return this.refuse(res, 404, `no request ${id}`);
    if (!waitsForOperator(r)) return this.refuse(res, 409, `${id} is ${r.status}${r.status === 'pending' ? ` and waits for ${r.to}` : ''}: nothing to answer`);
    if (form.get('rev') !== revisionOf(r)) return this.refuse(res, 409, `${id} changed since the page showed it: reload and answer again`);
    const approve = form.get('decision') === 'approve';
    if (!approve && form.get('decision') !== 'reject') return this.refuse(res, 400, 'decision must be approve or reject');
    const feedback = (form.get('feedback') ?? '').trim();
    if (!approve && !feedback) return this.refuse(res, 400, 'a rejection needs feedback');
    if (feedback.length > MAX_FEEDBACK) return this.refuse(res, 400, `feedback longer than ${MAX_FEEDBACK} characters`);
    const answered = await this.source.answer(r.id, r.to, approve, approve ? 'approved by the operator (web view)' : feedback);
    if (!answered.ok) return this.refuse(res, 409, `could not answer ${id}: ${answered.message}`);
    this.source.log.info(`web: ${approve ? 'approved' : 'rejected'} ${r.id} (${requestTitle(r)})`);
    const word = r.type === 'permission' ? (approve ? 'allowed' : 'denied') : approve ? 'approved' : 'rejected';
    return this.send(res, 303, 'text/plain; charset=utf-8', '', { Location: `/requests/${encodeURIComponent(r.id)}?done=${encodeURIComponent(word)}` });
  }

  private refuse(res: http.ServerResponse, status: number, why: string): void {
    this.source.log.warn(`web: refused an answer: ${why}`);
    this.send(res, status, 'text/plain; charset=utf-8', `teamux: ${why}\n`);
  }
}

/** An urlencoded form body of at most MAX_POST_BYTES; null when larger. */
function readForm(req: http.IncomingMessage): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is read and dropped (the server's request timeout bounds how long).
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_POST_BYTES) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_POST_BYTES ? null : new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}
