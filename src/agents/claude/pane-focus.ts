/**
 * Focus asked for by a program rather than the operator (the tmux stand-in's `select-pane -t %N`):
 * tmux moves its active pane at once, but in teamux the person at the keys comes first. The focus
 * moves only when the operator has not typed for OPERATOR_QUIET_MS (into any pane), no overlay or
 * half-entered prefix key is open, and the focused pane's Claude Code input box holds no draft;
 * otherwise the request waits and is looked at again. The latest request wins; one the operator
 * overtook (they moved focus themselves meanwhile) or that waited FOCUS_GIVE_UP_MS is dropped.
 * Owns the pending request and its timer.
 */
import { DEFERRED_RETRY_MS, OPERATOR_QUIET_MS, readPromptBox, type WakeGate } from './prompt-box.js';

/** How long a program's focus request may wait for the operator before it is dropped. */
export const FOCUS_GIVE_UP_MS = 30_000;
const OVERLAY_RETRY_MS = 1_000;

/** What the decision reads from the screen. */
export interface FocusFacts {
  /** The last time the operator typed or pasted into any pane (0: never). */
  lastTypedAt: number;
  /** The focused pane's visible rows (for a Claude Code input box with a draft), or null. */
  focusedRows: readonly string[] | null;
  /** A prompt, the help, the reader or a pending prefix key: the operator is in the middle of something. */
  busy: boolean;
}

/** May a program move the focus now? */
export function focusGate(now: number, f: FocusFacts): WakeGate {
  if (f.busy) return { now: false, retryInMs: OVERLAY_RETRY_MS, why: 'the operator is in the middle of a command' };
  const quietFor = now - f.lastTypedAt;
  if (f.lastTypedAt > 0 && quietFor < OPERATOR_QUIET_MS) return { now: false, retryInMs: OPERATOR_QUIET_MS - quietFor, why: 'the operator is typing' };
  if (f.focusedRows && readPromptBox(f.focusedRows).kind === 'text') return { now: false, retryInMs: DEFERRED_RETRY_MS, why: "the focused pane's input line holds the operator's draft" };
  return { now: true };
}

/** The screen a FocusRequests works on. */
export interface FocusScreen {
  /** The focused pane's id. */
  focused(): string | null;
  exists(id: string): boolean;
  facts(): FocusFacts;
  focus(id: string): void;
  note(text: string): void;
  now(): number;
}

/** Focus requests from programs, applied when the operator can be interrupted. */
export class FocusRequests {
  private pending: { id: string; since: number; operatorHad: string | null } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly screen: FocusScreen) {}

  /** Ask for pane `id` to be focused; true if it was focused at once. */
  request(id: string): boolean {
    this.pending = { id, since: this.screen.now(), operatorHad: this.screen.focused() };
    return this.attempt();
  }

  private attempt(): boolean {
    this.clear();
    const p = this.pending;
    if (!p) return false;
    const s = this.screen;
    if (!s.exists(p.id) || s.focused() === p.id) {
      this.pending = null;
      return s.focused() === p.id;
    }
    if (s.focused() !== p.operatorHad) {
      this.pending = null;
      s.note(`focus request for ${p.id} dropped: the operator moved the focus meanwhile`);
      return false;
    }
    const gate = focusGate(s.now(), s.facts());
    if (gate.now) {
      this.pending = null;
      s.focus(p.id);
      return true;
    }
    if (s.now() - p.since >= FOCUS_GIVE_UP_MS) {
      this.pending = null;
      s.note(`focus request for ${p.id} dropped after ${FOCUS_GIVE_UP_MS / 1000} s: ${gate.why}`);
      return false;
    }
    this.timer = setTimeout(() => this.attempt(), gate.retryInMs);
    return false;
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Drop the pending request and its timer. */
  dispose(): void {
    this.clear();
    this.pending = null;
  }
}
