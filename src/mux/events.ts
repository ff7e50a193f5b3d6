/**
 * The vocabulary between the reducer and the world. Events are what happened (a key, a change in the
 * team folder, a pane's exit, a resize, a timer, the result of an effect); effects are what the
 * reducer wants done, as plain data, executed by the runner (src/app/multiplexer.ts). Owns no data.
 *
 * Other modules drive the screen through the same events: `open-pane` (start a pane for a launch
 * spec), `replace-pane` (run a launch in an existing pane's slot), `close-pane` (stop showing a pane
 * and release it), `focus-pane` and `set-pane-title`, dispatched with
 * Multiplexer.dispatch().
 */
import type { KeyAction } from '../config/keys-actions.js';
import type { InputToken } from '../keys/input.js';
import type { SidebarData } from './sidebar-data.js';
import type { MouseReport } from '../vt/terminal.js';
import type { MemberLaunch } from './state.js';

/** What a pane's emulator says at the moment an input event is dispatched. */
export interface TermFacts {
  /** Rows of the emulator (a scroll page is one less). */
  rows: number;
  applicationCursorKeys: boolean;
  bracketedPaste: boolean;
  /** The application asked for mouse reports. */
  mouse: boolean;
}

/** Something that happened. */
export type MuxEvent =
  /**
   * A key, paste or mouse event from the outer terminal, with emulator modes by pane id (for a key or
   * paste, the focused pane's at least) and, while the reader is open, how many rows its request's
   * text takes at the reader's width (the view lays the text out; the reducer keeps the scroll in it).
   */
  | { kind: 'input'; token: InputToken; terms: Readonly<Record<string, TermFacts>>; readerRows?: number }
  /** Run a bound action as if its key was pressed. */
  | { kind: 'action'; action: KeyAction }
  | { kind: 'team'; snapshot: SidebarData }
  | { kind: 'resize'; cols: number; rows: number }
  /** Open a pane for a launch spec and start (or adopt) its process. */
  | { kind: 'open-pane'; launch: MemberLaunch }
  /** Stop showing a pane and release it; with `signal`, a process still running is sent it first (tmux kill-pane: SIGHUP). */
  | { kind: 'close-pane'; pane: string; signal?: NodeJS.Signals }
  /** Run `launch` in the slot of pane `pane` (its layout position and number): the old pane is released, the new one started. */
  | { kind: 'replace-pane'; pane: string; launch: MemberLaunch }
  /** Focus a pane (a tmux stand-in's select-pane); the caller decides whether the operator can be interrupted. */
  | { kind: 'focus-pane'; pane: string }
  /** Show `title` in the pane's title bar instead of the role (null: back to the role). */
  | { kind: 'set-pane-title'; pane: string; title: string | null }
  | { kind: 'pane-started'; pane: string; error: string | null }
  | { kind: 'pane-exit'; pane: string; exitText: string; code: number | null }
  | { kind: 'pane-note'; pane: string; text: string | null }
  /** After a wheel scroll: whether the pane is still scrolled back. */
  | { kind: 'scrolled'; pane: string; scrolledBack: boolean }
  | { kind: 'shutdown-step'; pane: string; text: string }
  /** A handshake ended: the process is gone (refused null) or the member refused, with its reason. */
  | { kind: 'shutdown-done'; pane: string; refused: string | null }
  /** A forced quit has terminated every pane. */
  | { kind: 'terminated' }
  | { kind: 'say'; text: string }
  /**
   * An answer to a request was written: until the next read of the team shows it, the screen counts
   * it as answered, so the next C-a a / C-a r goes to the next pending request, never to this one again.
   */
  | { kind: 'answered'; request: string; approve: boolean; text: string }
  | { kind: 'status-expired'; serial: number }
  /** Show a box of text (and a QR code) over the screen until the next key. */
  | { kind: 'show-panel'; title: string; lines: readonly string[]; qr: readonly string[] }
  /** The outer terminal went away (SIGHUP, SIGTERM, end of input). */
  | { kind: 'hangup' };

/** Something the reducer wants done. */
export type Effect =
  /** Create the pane's emulator and start or adopt its process, then dispatch pane-started. */
  | { kind: 'spawn'; pane: string; launch: MemberLaunch }
  /** Start an exited pane's process again. */
  | { kind: 'restart'; pane: string; fresh?: boolean }
  | { kind: 'signal'; pane: string; signal: NodeJS.Signals }
  /** Release a pane's emulator and process handle. */
  | { kind: 'dispose'; pane: string }
  /** A key's bytes to the pane, cursor keys encoded for its mode; a scrolled-back view snaps to the bottom. */
  | { kind: 'type'; pane: string; raw: string }
  /** Bytes to the pane as they are. */
  | { kind: 'write'; pane: string; data: string }
  /** A paste, bracketed when the application asked for it. */
  | { kind: 'paste'; pane: string; text: string }
  /** Scroll the pane's view by rows, to the top or to the bottom; `report` answers with a scrolled event. */
  | { kind: 'scroll'; pane: string; by: number | 'top' | 'bottom'; report?: boolean }
  | { kind: 'report-focus'; pane: string; focused: boolean }
  | { kind: 'report-mouse'; pane: string; report: MouseReport }
  /** Answer a request as the operator; say `done` or `failed: reason`; a throw is reported under `label`. */
  | { kind: 'answer'; label: string; request: string; to: string; approve: boolean; text: string; done: string; failed: string }
  | { kind: 'broadcast'; label: string; text: string }
  /** Run the shutdown handshake with these panes, in parallel (shutdown-step / shutdown-done come back). */
  | { kind: 'shutdown'; panes: readonly string[] }
  /** SIGTERM then SIGKILL every pane, then dispatch terminated. */
  | { kind: 'terminate-all' }
  /** Record a member's exit in the team folder. */
  | { kind: 'member-exited'; pane: string; code: number | null; exitText: string }
  /** Stop everything and restore the terminal; `kill` ends member processes the host still has. */
  | { kind: 'finish'; code: number; kill: boolean; farewell: string | null }
  /** Pane rectangles changed: resize emulators and processes, repaint everything. */
  | { kind: 'relayout' }
  /** Repaint everything (an overlay closed, focus moved). */
  | { kind: 'repaint' }
  /** Repaint titles and the sidebar. */
  | { kind: 'chrome' }
  /** Mark a pane's content for drawing. */
  | { kind: 'pane-dirty'; pane: string }
  /** Dispatch `event` after `ms`, replacing the timer of the same name. */
  | { kind: 'timer'; name: 'status'; ms: number; event: MuxEvent }
  | { kind: 'log'; text: string }
  /** Bell, terminal title and notify command for requests that started waiting. */
  | { kind: 'attention' }
  /** Show the web view's link (and QR code) in a panel, or say that the web view is off. */
  | { kind: 'web-link' };

/** The reducer's answer: the next state and what to do. */
export type Step<S> = readonly [S, readonly Effect[]];
