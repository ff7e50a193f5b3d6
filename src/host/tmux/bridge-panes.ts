/**
 * The tmux host's follower of the panes the tmux stand-in's bridge process opens in the session
 * (follow.ts decides, this acts): it owns who listens, and which of the host's tracked panes are
 * such panes, so that their going closes them in the screen. It turns the subscriptions' reports
 * into PaneAppearance events: appeared, renamed (re-tracked and snapshotted by the host), gone, focus.
 */
import type { Disposable, PaneAppearance } from '../types.js';
import { FOCUS_SUBSCRIPTION, parseTagValue, TAG_SUBSCRIPTION, tagChange, tagSubscriptionCommand } from './follow.js';
import { focusSubscriptionCommand, parseFocusRequest } from './focus-request.js';
import { Listeners } from './listeners.js';
import type { TmuxPane } from './pane.js';

/** What the follower needs from its host. */
export interface FollowSeat {
  tracked(paneId: string): TmuxPane | undefined;
  /** Track `paneId` as `member` in place of what was tracked there, with its captured screen; null if the host went away. */
  retrack(paneId: string, member: string, pid: number | undefined, was: TmuxPane | undefined): Promise<TmuxPane | null>;
  /** Send control-mode commands (the subscriptions). */
  send(commands: string[][]): Promise<void>;
}

/** Follows the bridge's panes for one host. */
export class BridgePanes {
  private readonly listeners = new Listeners<PaneAppearance>();
  private readonly followed = new Set<string>();

  constructor(private readonly seat: FollowSeat) {}

  /** Add a listener; the first one subscribes. */
  async add(listener: (change: PaneAppearance) => void): Promise<Disposable> {
    const registration = this.listeners.add(listener);
    if (this.listeners.size === 1) await this.seat.send([tagSubscriptionCommand(), focusSubscriptionCommand(FOCUS_SUBSCRIPTION)]).catch(() => {});
    return registration;
  }

  /** A subscription report (ignored unless it is one of ours and someone listens). */
  report(name: string, paneId: string, value: string): void {
    if (this.listeners.size === 0) return;
    if (name === FOCUS_SUBSCRIPTION) {
      const focus = parseFocusRequest(value);
      if (focus) this.listeners.emit({ kind: 'focus', id: focus.member, at: focus.at });
      return;
    }
    const tag = name === TAG_SUBSCRIPTION ? parseTagValue(value) : null;
    if (!tag) return;
    const known = this.seat.tracked(paneId);
    // A bridge pane adopted at attach is followed from its first report on (its going closes its pane).
    if (known) this.followed.add(paneId);
    if (tagChange(known?.id, tag) === 'none') return;
    void this.seat.retrack(paneId, tag.member, tag.pid, known).then((pane) => {
      if (!pane) return;
      this.followed.add(paneId);
      this.listeners.emit(known ? { kind: 'renamed', from: known.id, proc: pane, slot: tag.slot } : { kind: 'appeared', proc: pane, slot: tag.slot });
    });
  }

  /** A tracked pane left the session: true (and `gone` said) when it was a bridge pane. */
  left(pane: TmuxPane): boolean {
    if (!this.followed.delete(pane.paneId)) return false;
    this.listeners.emit({ kind: 'gone', id: pane.id });
    return true;
  }

  /** Drop every listener. */
  clear(): void {
    this.listeners.clear();
  }
}
