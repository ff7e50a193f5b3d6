/**
 * The multiplexer's state as one value: the panes as the screen knows them (number, life, notes,
 * scroll mode), focus and zoom, the overlays (help, reader, prompt), the status message, the team
 * snapshot the sidebar draws, and where a quit stands. Nothing here holds a process, an emulator or
 * a timer: those belong to the effect runner (src/app/multiplexer.ts), which sends what happens to
 * them back as events. The reducer replaces this value, never mutates it; the selectors below derive
 * what drawing and the reducer both need (geometry, the waiting requests, the status badge).
 */
import type { KeyAction } from '../config/keys-actions.js';
import type { KeyMode, KeyTable } from '../keys/keymap.js';
import { waitsForOperator } from '../protocol/operator.js';
import type { ProtocolRequest } from '../protocol/types.js';
import { screenLayout, sidebarWidth, type LayoutName, type MainSize, type ScreenLayout, type SidebarSize } from './geometry.js';
import { pendingRequests, type SidebarData, type SidebarSection } from './sidebar-data.js';
import type { PromptState } from './prompt.js';

/** A member as the multiplexer launches it. */
export interface MemberLaunch {
  name: string;
  role: string;
  isLead: boolean;
  /** Answers shutdown requests; a member that does not is hung up on (SIGHUP) when it is closed. */
  speaksProtocol: boolean;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Set for a Claude Code member: messages wake it through its pane, and it is ended after approving a shutdown. */
  cli?: 'claude' | 'codex';
  /** Merged over `env` each time the process is started again (the lead's fresh one-time enrolment token). */
  restartEnv?: () => Record<string, string>;
  /**
   * The argv for each start of the process, first or again: a CLI's own resume of the conversation it
   * recorded (`claude --resume <session id>`), or `args` when there is none or `fresh` is asked for.
   */
  argsAtStart?: (fresh: boolean) => Promise<LaunchArgs>;
}

/** A start's argv, and what to tell the person about it (a resumed session, or why it could not be). */
export interface LaunchArgs {
  args: string[];
  note: string | null;
}

/** A pane's process as the screen knows it. */
export type PaneLife = 'starting' | 'running' | 'exited';

/** One pane as the screen knows it (its emulator and process are the runner's, under the same id). */
export interface PaneState {
  readonly id: string;
  /** C-a N and the title: given once, kept when other panes close. */
  readonly number: number;
  readonly role: string;
  readonly isLead: boolean;
  readonly life: PaneLife;
  /** "exited 0", "killed by SIGTERM" once exited; '' before. */
  readonly exitText: string;
  readonly scrollMode: boolean;
  /** A handshake step or other transient note shown in the title. */
  readonly note: string | null;
  /** A title set at run time (a tmux stand-in's select-pane -T), shown instead of the role. */
  readonly title: string | null;
}

/** What a prompt's text is for once submitted. */
export type PromptPurpose =
  | { kind: 'broadcast' }
  | { kind: 'reject'; request: string; to: string; what: string; verb: 'reject' | 'deny' }
  /** A yes/no question before shutting panes down (tmux's confirm-before on kill-pane): `y` goes on. */
  | { kind: 'confirm-shutdown'; panes: readonly string[] };

/** A running shutdown of several panes and what follows when the last one is done. */
export interface ShutdownBatch {
  readonly purpose: 'manual' | 'quit-teammates' | 'quit-leads';
  readonly names: readonly string[];
  readonly waiting: readonly string[];
  readonly refused: boolean;
}

/** What the multiplexer is configured with (fixed for its life). */
export interface MuxConfig {
  team: string;
  keys: KeyTable;
  layout: LayoutName;
  mainSize: MainSize;
  sidebar: SidebarSize & { position: 'left' | 'right'; sections: readonly SidebarSection[] };
  hostKind: 'pty' | 'tmux';
  demo: boolean;
  /** How long a status-line message stays, in ms. */
  messageMs: number;
}

/** The whole state. */
export interface MuxState {
  readonly cfg: MuxConfig;
  // screen
  readonly cols: number;
  readonly rows: number;
  // panes and focus
  readonly panes: readonly PaneState[];
  readonly nextNumber: number;
  readonly focused: number;
  readonly zoomed: number | null;
  /** The sidebar toggle: null until the person uses it, then shown or hidden whatever the width. */
  readonly sidebarShown: boolean | null;
  // team
  readonly snapshot: SidebarData;
  readonly selectedRequest: string | null;
  /** Handshakes in progress, by member: the sidebar lists them and the title says "stopping". */
  readonly notices: ReadonlyMap<string, string>;
  // input and overlays
  readonly mode: KeyMode;
  readonly prompt: { edit: PromptState; purpose: PromptPurpose } | null;
  readonly help: boolean;
  /** A box of text over the screen (the web view's link and QR code), closed by any key. */
  readonly panel: { title: string; lines: readonly string[]; qr: readonly string[] } | null;
  /** The request open in the reader and how far it is scrolled. */
  readonly reader: { id: string; top: number } | null;
  readonly message: { text: string; serial: number } | null;
  /** Counts status messages, so an expiry timer clears only its own message. */
  readonly serial: number;
  // life
  readonly quitting: 'no' | 'graceful' | 'forced';
  readonly shutdowns: readonly ShutdownBatch[];
  readonly finished: boolean;
}

/** The state before anything has started. */
export function initialState(cfg: MuxConfig, snapshot: SidebarData, cols = 80, rows = 24): MuxState {
  return {
    cfg, cols, rows, panes: [], nextNumber: 1, focused: 0, zoomed: null, sidebarShown: null,
    snapshot, selectedRequest: null, notices: new Map(), mode: 'attach', prompt: null, help: false, panel: null, reader: null, message: null, serial: 0,
    quitting: 'no', shutdowns: [], finished: false,
  };
}

/** Where everything sits for this state. */
export function layoutOf(s: MuxState): ScreenLayout {
  const side = sidebarWidth(s.cfg.sidebar, s.cols, s.sidebarShown);
  return screenLayout(s.cols, s.rows, s.cfg.layout, s.cfg.mainSize, s.panes.length, { position: s.cfg.sidebar.position, width: side, hidden: side === 0 }, s.zoomed);
}

/** The focused pane, if any. */
export function focusedPane(s: MuxState): PaneState | undefined {
  return s.panes[s.focused];
}

/** The pane called `id` and its index (-1 when there is none). */
export function paneIndex(s: MuxState, id: string): number {
  return s.panes.findIndex((p) => p.id === id);
}

/** The first key bound to an action, if any. */
export function keyOf(keys: KeyTable, action: KeyAction): string | undefined {
  return [...keys.bindings].find(([, a]) => a === action)?.[0];
}

/**
 * The pending requests that wait for the person at the keys: plans addressed to the operator (a plan
 * for an agent lead waits for the lead's signed answer, not for the person) and permission requests.
 */
export function awaiting(s: MuxState): ProtocolRequest[] {
  return pendingRequests(s.snapshot).filter(waitsForOperator);
}

/** The status-line badge, "⚑ 1 plan awaiting C-a a" ("⚑ 2 requests awaiting …" with permissions), or null. */
export function badge(s: MuxState): string | null {
  const waiting = awaiting(s);
  const n = waiting.length;
  if (n === 0) return null;
  const noun = waiting.every((r) => r.type === 'plan_approval') ? 'plan' : 'request';
  const key = keyOf(s.cfg.keys, 'approve');
  return `⚑ ${n} ${noun}${n === 1 ? '' : 's'} awaiting${key ? ` ${s.cfg.keys.prefix} ${key}` : ''}`;
}

/** The reader box's size on this screen: width, height, its text's width and rows shown, and the rows one page scrolls. */
export function readerSize(s: MuxState): { width: number; height: number; textWidth: number; visible: number; page: number } {
  const width = Math.max(10, Math.min(s.cols, 100));
  const height = Math.max(3, s.rows - 1);
  return { width, height, textWidth: Math.max(1, width - 4), visible: Math.max(1, height - 2), page: Math.max(1, height - 3) };
}

/** Clamp a scroll position to the rows there are. */
export function clampScroll(top: number, total: number, visible: number): number {
  return Math.max(0, Math.min(top, total - visible));
}
