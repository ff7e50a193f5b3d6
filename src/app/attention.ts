/**
 * Getting the person's attention when a request starts waiting: the terminal bell, the terminal title
 * ("⚑ 2 awaiting · teamux: demo") while any wait, and an optional notify command (e.g. notify-send)
 * run with the request's summary as one argument, never through a shell. Owns the ids already
 * announced, the title last written and the notify children still running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { ProtocolRequest } from '../protocol/types.js';

/** The layout's `attention` settings. */
export interface AttentionOptions {
  bell: boolean;
  title: boolean;
  /** argv of the notify command; the summary is appended as the last argument. */
  notify: string[] | null;
}

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
      for (const r of fresh) this.notify(requestSummary(r));
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

  /** Stop notify commands still running. */
  dispose(): void {
    for (const c of this.children) c.kill('SIGTERM');
    this.children.clear();
  }
}
