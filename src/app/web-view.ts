/**
 * The screen's web view, plugged into the multiplexer from where the screen starts: a WebServer
 * (src/web/server.ts) that reads the same snapshot the sidebar draws and answers through the same
 * signed path as C-a a / C-a r (the screen's store and key), the panel C-a W shows (the link with its
 * token and a QR code, on the person's terminal only), and the links notifications carry. Owns the
 * server; disposed with the screen.
 */
import { readFileSync } from 'node:fs';
import type { ProtocolRequest } from '../protocol/types.js';
import type { MuxEvent } from '../mux/events.js';
import type { TeamStore } from '../store/team.js';
import type { TeamSnapshot } from './team-view.js';
import { execGit } from '../host/git/run.js';
import { Git } from '../host/git/repo.js';
import { memberDiff } from '../ops/worktree-diff.js';
import { WorktreeRecord } from '../store/worktrees.js';
import { qrRows } from '../web/qr.js';
import { WebServer } from '../web/server.js';

/** The layout's `web:` settings (or `--web[=PORT]`). */
export interface WebSettings {
  port: number;
  listen: string;
  /** PEM files, read when the server starts. */
  tls: { cert: string; key: string } | null;
}

/** What the web view needs of the multiplexer. */
export interface WebViewHost {
  readonly snapshot: TeamSnapshot;
  readonly view: { onChange(listener: () => void): { dispose(): void } };
  dispatch(event: MuxEvent): void;
}

/** A started web view. */
export interface WebView {
  /** The panel C-a W shows. */
  panel(): MuxEvent;
  /** The link to a waiting request, without the token (a browser that opened the screen's link once has the cookie). */
  linkTo(req: ProtocolRequest): string;
  dispose(): Promise<void>;
}

/** Addresses reachable from this machine alone. */
function loopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** Start the web view; a port that cannot be had is said on the status line, never fatal to the screen. */
export async function startWebView(host: WebViewHost, store: TeamStore, settings: WebSettings): Promise<WebView | null> {
  let tls: { cert: Buffer; key: Buffer } | null = null;
  if (settings.tls) {
    try {
      tls = { cert: readFileSync(settings.tls.cert), key: readFileSync(settings.tls.key) };
    } catch (err) {
      host.dispatch({ kind: 'say', text: `web view off: cannot read its TLS files (${(err as Error).message})` });
      return null;
    }
  }
  const worktrees = new WorktreeRecord(store.dir);
  const git = new Git(execGit(process.env));
  const server = new WebServer({
    snapshot: () => host.snapshot,
    onChange: (listener) => host.view.onChange(() => listener()),
    events: async (limit) => (await store.events.read(limit)).events,
    answer: async (request, to, approve, text) => {
      const r = await store.answerRequest(request, to, approve, text);
      if (!r.ok) return { ok: false, message: r.message };
      host.dispatch({ kind: 'answered', request, approve, text: `${approve ? 'approved' : 'rejected'} ${r.value.from}'s ${r.value.type === 'permission' ? 'request' : 'plan'} (web view)` });
      return { ok: true };
    },
    diff: async (member) => {
      const read = await worktrees.read();
      if (!read.ok) return { ok: false, message: read.message };
      const d = await memberDiff(git, read.book, member, { patch: true });
      return d.ok ? { ok: true, value: { ...d.value, patch: d.value.patch ?? '' } } : { ok: false, message: d.message };
    },
    worktreeMembers: async () => {
      const read = await worktrees.read();
      return read.ok && read.book ? read.book.members.filter((m) => m.removedAt === null).map((m) => m.member) : [];
    },
    log: store.log,
  }, { port: settings.port, listen: settings.listen, tls });
  try {
    await server.start();
  } catch (err) {
    host.dispatch({ kind: 'say', text: `web view off: ${(err as Error).message}` });
    store.log.warn(`web view not started: ${(err as Error).message}`);
    return null;
  }
  const where = server.link('/');
  if (!loopback(settings.listen)) store.log.warn(`web view listens on ${settings.listen}, beyond this machine${tls ? '' : ', without TLS'}`);
  store.log.info(`web view at ${where} (the token is shown on the screen only: C-a W)`);
  return {
    panel: () => {
      const url = server.url('/');
      return {
        kind: 'show-panel',
        title: 'web view',
        lines: [url, '', 'Open it in a browser (or scan it with a phone on this network);', 'it holds the token: share it only with whoever may answer.', ...(loopback(settings.listen) ? ['It listens on this machine only (web: listen: to change).'] : [])],
        qr: qrRows(url),
      };
    },
    linkTo: (req) => server.link(`/requests/${encodeURIComponent(req.id)}`),
    dispose: () => server.dispose(),
  };
}
