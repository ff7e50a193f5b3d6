/**
 * Getting the person's attention when a request starts waiting: the terminal bell, the terminal title
 * ("⚑ 2 awaiting · teamux: demo") while any wait, an optional notify command (e.g. notify-send)
 * run with the request's summary as one argument, never through a shell, and an optional webhook
 * POSTed a JSON notice (ntfy's form when it names a topic). With the web view on, both carry the link
 * to the waiting request — without the token, which only the person's screen shows. Owns the ids
 * already announced, the title last written, the notify children and the webhook posts in flight.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { ProtocolRequest } from '../protocol/types.js';

/** The layout's `attention` settings. */
export interface AttentionOptions {
  bell: boolean;
  title: boolean;
  /** argv of the notify command; the summary is appended as the last argument. */
  notify: string[] | null;
  /** Where to POST a JSON notice; `topic`: ntfy's JSON publishing form (url is the server). */
  webhook?: { url: string; topic: string | null } | null;
}

/** How long a webhook post may take before it is given up (logged). */
export const WEBHOOK_TIMEOUT_MS = 5_000;

/** The default: bell and title, no notify command. */
export const DEFAULT_ATTENTION: AttentionOptions = { bell: true, title: true, notify: null };

/** A one-line summary of a request that is safe anywhere: control characters removed, at most 200 characters. */
export function requestSummary(r: ProtocolRequest): string {
  const kind = r.type === 'plan_approval' ? 'plan awaiting approval' : r.type === 'permission' ? 'permission request' : 'shutdown request';
  const first = r.body.split('\n').find((l) => l.trim() !== '') ?? '';
  // C0, DEL and C1 controls (ESC, BEL, CSI …) would act on a terminal or a notification daemon.
  const clean = `${r.from}: ${kind}: ${first}`.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > 200 ? `${clean.slice(0, 199)}…` : clean;
}

/** Announces newly waiting requests and keeps the terminal title in step with how many wait. */
export class Attention {
  // requests already announced, so a redraw does not ring again
  private announced = new Set<string>();
  // the title last written (null: never written)
  private title: string | null = null;
  // notify commands still running, killed on dispose
  private readonly children = new Set<ChildProcess>();
  // webhook posts in flight, aborted on dispose
  private readonly posts = new Set<AbortController>();
  /** The web view's link to a request (set once the web view is up); null: no link. */
  linkTo: ((r: ProtocolRequest) => string) | null = null;

  constructor(
    private readonly opts: AttentionOptions,
    private readonly team: string,
    private readonly write: (data: string) => void,
    private readonly log: { warn(message: string): void },
  ) {}

  /** Take the currently pending requests; ring, notify and retitle for the ones not seen before. */
  update(pending: readonly ProtocolRequest[]): void {
    const fresh = pending.filter((r) => !this.announced.has(r.id));
    this.announced = new Set(pending.map((r) => r.id));
    if (fresh.length > 0) {
      if (this.opts.bell) this.write('\x07');
      for (const r of fresh) {
        const link = this.linkTo?.(r) ?? null;
        this.notify(link ? `${requestSummary(r)} ${link}` : requestSummary(r));
        this.post(r, link);
      }
    }
    if (this.opts.title) {
      const title = pending.length > 0 ? `⚑ ${pending.length} awaiting · teamux: ${this.team}` : `teamux: ${this.team}`;
      if (title !== this.title) {
        this.title = title;
        // The title holds only a count and the team name (a checked name): nothing from team data.
        this.write(`\x1b]2;${title}\x07`);
      }
    }
  }

  private notify(summary: string): void {
    const argv = this.opts.notify;
    if (!argv || argv.length === 0) return;
    let child: ChildProcess;
    try {
      child = spawn(argv[0]!, [...argv.slice(1), summary], { stdio: 'ignore', shell: false });
    } catch (err) {
      this.log.warn(`notify command ${argv[0]} failed: ${(err as Error).message}`);
      return;
    }
    this.children.add(child);
    child.on('error', (err) => this.log.warn(`notify command ${argv[0]} failed: ${err.message}`));
    child.on('exit', () => this.children.delete(child));
  }

  private post(r: ProtocolRequest, link: string | null): void {
    const hook = this.opts.webhook;
    if (!hook) return;
    const body = { ...(hook.topic ? { topic: hook.topic } : {}), title: `teamux: ${this.team}`, message: requestSummary(r), ...(link ? { click: link } : {}), tags: ['teamux'], request: { id: r.id, type: r.type, from: r.from, to: r.to } };
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), WEBHOOK_TIMEOUT_MS);
    this.posts.add(abort);
    fetch(hook.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal: abort.signal })
      .then((res) => { if (!res.ok) this.log.warn(`webhook ${new URL(hook.url).host} answered ${res.status}`); })
      .catch((err: Error) => this.log.warn(`webhook ${new URL(hook.url).host} failed: ${abort.signal.aborted ? `no answer in ${WEBHOOK_TIMEOUT_MS} ms` : err.message}`))
      .finally(() => { clearTimeout(timer); this.posts.delete(abort); });
  }

  /** Stop notify commands still running and webhook posts in flight. */
  dispose(): void {
    for (const c of this.children) c.kill('SIGTERM');
    this.children.clear();
    for (const a of this.posts) a.abort();
    this.posts.clear();
  }
}
