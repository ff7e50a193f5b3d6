/**
 * The multiplexer: panes for every member, the sidebar from the watched team folder, the status
 * line, and one frame scheduler. As in tmux's server loop, a pane's data callback only feeds its
 * emulator and marks it dirty; `frame()` draws everything dirty at most ~60 times a second. Keys
 * and actions live in mux-input.ts and mux-actions.ts; this file owns the state and the drawing.
 */
import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { PaneHost, PaneProcess, PaneSpec } from '../host/types.js';
import type { ProtocolRequest } from '../protocol/types.js';
import { InputTokenizer } from '../keys/input.js';
import type { KeyMode, KeyTable } from '../keys/keymap.js';
import type { TeamStore } from '../store/team.js';
import { helpBox, statusRow, titleRow } from '../ui/chrome.js';
import { readerBox } from '../ui/reader.js';
import { innerSize, screenLayout, sidebarWidth, type SidebarSize, type LayoutName, type MainSize, type Rect, type ScreenLayout } from '../ui/geometry.js';
import { paintRow, paintRows } from '../ui/paint.js';
import { paintPane } from '../ui/pane-view.js';
import { pendingRequests, renderSidebar, type SidebarSection } from '../ui/sidebar.js';
import { C, rowText, style, textWidth } from '../ui/text.js';
import { installBlessedAttrs } from '../ui/blessed-attrs.js';
import { TerminalGuard } from '../ui/terminal-guard.js';
import type { PromptState } from './prompt.js';
import { Pane, SCROLLBACK_LINES } from './pane.js';
import { TeamView, type TeamSnapshot } from './team-view.js';
import { handleInput, flushInput } from './mux-input.js';
import { keyRows } from './actions.js';
import { watchSpawns } from './spawn-watch.js';
import { watchClaudeWake } from './claude-wake.js';
import { formatTokens, formatUsd } from '../agent/pricing.js';
import type { ClaudeActivity } from '../store/claude.js';
import type { ClaudeTeamView } from '../store/claude-team-files.js';
import type { SpawnRequest } from '../protocol/spawn.js';
import { memberActivity, type Activity } from '../protocol/activity.js';
import { OPERATOR } from '../protocol/operator.js';
import { Attention, DEFAULT_ATTENTION, type AttentionOptions } from './attention.js';
import { attachTmuxBridge, type NativeTeamsOptions } from './native-teams.js';

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
  cli?: 'claude';
}

/** Everything the multiplexer is started with. */
export interface MuxOptions {
  store: TeamStore;
  host: PaneHost;
  team: string;
  lead: string;
  layout: LayoutName;
  mainSize: MainSize;
  sidebar: SidebarSize & { position: 'left' | 'right'; sections: SidebarSection[] };
  /** Bell, terminal title and notify command when a request starts waiting (default: bell and title). */
  attention?: AttentionOptions;
  keys: KeyTable;
  shutdownTimeoutMs: number;
  members: MemberLaunch[];
  demo: boolean;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** Run after every member is gone, before the screen closes. */
  onShutdown?: () => Promise<void>;
  /** Lines of scrollback per pane. */
  scrollback?: number;
  /** How long a status-line message stays, in ms (default 6000). */
  messageMs?: number;
  /** Processes already running (tmux attach): members found here are adopted, not started. */
  adopt?: PaneProcess[];
  /** How to launch a teammate asked for by a spawn request (absent: spawn requests are not watched). */
  spawnLaunch?: (req: SpawnRequest) => MemberLaunch | { error: string };
  /** A Claude Code lead whose own agent teams open as panes here (the tmux stand-in). */
  nativeTeams?: NativeTeamsOptions;
}

const FRAME_MS = 16;
const ESC_TIMEOUT_MS = 25;
const SEPARATOR = style(240);

/** A Claude Code member's state with its tokens and cost: "idle · 28.6k tok · $0.11". */
function withUsage(state: string, a: ClaudeActivity | undefined): string {
  const parts = [state];
  if (a?.tokens) parts.push(`${formatTokens(a.tokens.input + a.tokens.output)} tok`);
  if (a && a.costUsd !== null) parts.push(formatUsd(a.costUsd));
  return parts.join(' · ');
}

/** Break text into lines of at most `width` columns at spaces. */
function wrapWords(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = '';
    }
    line = line ? `${line} ${word}` : word.slice(0, Math.max(1, width));
  }
  if (line) out.push(line);
  return out;
}

/** The running multiplexer. */
export class Multiplexer {
  // configuration
  readonly opts: MuxOptions;
  // screen
  screen!: blessed.Widgets.Screen;
  geometry!: ScreenLayout;
  private frameTimer: { immediate: NodeJS.Immediate } | { timeout: NodeJS.Timeout } | null = null;
  private lastFrame = 0;
  private fullRepaint = true;
  private chromeDirty = true;
  // panes and focus
  panes: Pane[] = [];
  /** Each pane's number (C-a N, the title): given once, kept when other panes close. */
  readonly numbers = new WeakMap<Pane, number>();
  private nextNumber = 1;
  focused = 0;
  zoomed: number | null = null;
  // team state
  readonly view: TeamView;
  snapshot: TeamSnapshot;
  selectedRequest: string | null = null;
  /** A native lead's Claude Code team, as its files show it (see native-teams.ts). */
  claudeTeam: ClaudeTeamView | null = null;
  /** The sidebar toggle (C-a t): null until the person uses it, then shown or hidden whatever the width. */
  sidebarShown: boolean | null = null;
  notices = new Map<string, string>();
  // input
  mode: KeyMode = 'attach';
  prompt: PromptState | null = null;
  promptSubmit: ((text: string) => unknown) | null = null;
  helpOpen = false;
  /** The request open in the reader (C-a v) and how far it is scrolled. */
  reader: { id: string; top: number } | null = null;
  message: string | null = null;
  private messageTimer: NodeJS.Timeout | null = null;
  readonly tokenizer = new InputTokenizer();
  private readonly decoder = new StringDecoder('utf8');
  escTimer: NodeJS.Timeout | null = null;
  // life
  quitting: 'no' | 'graceful' | 'forced' = 'no';
  private finishing = false;
  private finished!: (code: number) => void;
  private readonly done: Promise<number>;
  private readonly cleanups: Array<() => void> = [];
  private guard: TerminalGuard | null = null;
  private attention: Attention | null = null;
  /** Said on the restored terminal after the screen closes (a crash, a failed start, a detach). */
  farewell: string | null = null;

  constructor(opts: MuxOptions) {
    this.opts = opts;
    this.view = new TeamView(opts.store);
    this.snapshot = this.view.snapshot();
    this.done = new Promise((resolve) => (this.finished = resolve));
  }

  /** Take over the terminal, start every member, and resolve with the exit code when it quits. */
  async run(): Promise<number> {
    // Resolves when finish() runs, even if that happens while start-up is still waiting on something.
    void this.startUp().catch(async (err: unknown) => {
      this.opts.store.log.error('start-up failed', err);
      if (this.finishing) return;
      // A failed start-up still restores the terminal and stops whatever had started.
      this.farewell = `teamux: could not start: ${(err as Error).message}\n  hint: see ${this.opts.store.paths.log}`;
      await this.finish(1);
    });
    return this.done;
  }

  private async startUp(): Promise<void> {
    // The keys act as the operator (`human`), not as the lead.
    this.opts.store.actAsOperator();
    installBlessedAttrs();
    this.screen = blessed.screen({
      input: new PassThrough() as unknown as NodeJS.WriteStream,
      output: this.opts.output,
      terminal: 'xterm-256color',
      fullUnicode: true,
      forceUnicode: true,
      smartCSR: false,
      warnings: false,
      dockBorders: false,
      autoPadding: false,
      title: `teamux: ${this.opts.team}`,
    });
    // Draw box characters as UTF-8, never through the VT100 alternate character set: a pane's text
    // and the separators then read the same in every terminal and in tmux's capture-pane.
    (this.screen as unknown as { program: { tput: { brokenACS: boolean } } }).program.tput.brokenACS = true;
    this.setupTerminal();
    this.attention = new Attention(this.opts.attention ?? DEFAULT_ATTENTION, this.opts.team, (d) => this.opts.output.write(d), this.opts.store.log);
    this.cleanups.push(() => this.attention?.dispose());
    this.relayout();
    // The team folder watch starts while the panes start.
    const watching = this.view.start().then(() => {
      this.snapshot = this.view.snapshot();
      this.keepSelection();
      this.attention?.update(this.awaiting());
      this.invalidate();
    });
    const sub = this.view.onChange((s) => {
      this.snapshot = s;
      this.keepSelection();
      this.attention?.update(this.awaiting());
      // The team folder changed: the sidebar and the titles (states) are redrawn, not pane contents.
      this.chromeDirty = true;
      this.requestFrame();
    });
    this.cleanups.push(() => sub.dispose());
    if (this.opts.nativeTeams) this.cleanups.push(await attachTmuxBridge(this, this.opts.nativeTeams));
    // Every pane gets its final size before its process starts (or its screen is replayed).
    const opened = this.opts.members.map((m) => [this.addPane(m), m] as const);
    this.relayout();
    await Promise.all(opened.map(([pane, m]) => this.launch(pane, m)));
    await watching;
    const launch = this.opts.spawnLaunch;
    if (launch) {
      const spawns = await watchSpawns(this.opts.store, {
        say: (t) => this.say(t),
        open: async (req) => {
          const l = launch(req);
          if ('error' in l) this.say(`cannot spawn ${req.name}: ${l.error}`);
          else await this.openPane(l);
        },
      });
      this.cleanups.push(() => spawns.dispose());
    }
    const claude = this.opts.members.filter((m) => m.cli === 'claude').map((m) => m.name);
    if (claude.length > 0) {
      const running = (name: string): Pane | undefined => this.panes.find((p) => p.name === name && p.life === 'running');
      const wake = await watchClaudeWake(this.opts.store, claude, running, { targetOf: running, startedAt: (name) => this.panes.find((p) => p.name === name)?.startedAt ?? Date.now(), graceMs: this.opts.shutdownTimeoutMs });
      this.cleanups.push(() => wake.dispose());
    }
    this.requestFrame();
  }

  /**
   * Run one piece of user-triggered work (a key action, a prompt's submit, a pane's exit): whether it
   * throws or rejects, the failure goes to the status line and teamux.log, never to the process.
   */
  guarded(what: string, work: () => unknown): void {
    const failed = (err: unknown): void => {
      this.opts.store.log.error(`${what} failed`, err);
      this.say(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
    };
    try {
      const r = work();
      if (r instanceof Promise) r.catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  /** Create a pane for a member and start (or adopt) its process. */
  async openPane(m: MemberLaunch): Promise<Pane> {
    const pane = this.addPane(m);
    this.relayout();
    await this.launch(pane, m);
    return pane;
  }

  /** Add a pane to the layout without starting anything. */
  private addPane(m: MemberLaunch): Pane {
    const spec: PaneSpec = { id: m.name, command: m.command, args: m.args, cwd: m.cwd, env: m.env, cols: 80, rows: 24 };
    const pane = new Pane(spec, m.role, m.isLead, this.opts.host.kind === 'pty', this.opts.scrollback ?? SCROLLBACK_LINES, () => this.requestFrame(), (p) => this.guarded(`${p.name}'s exit`, () => this.paneExited(p)));
    pane.endsOnApproval = m.cli === 'claude';
    pane.speaksProtocol = m.speaksProtocol;
    this.panes.push(pane);
    this.numbers.set(pane, this.nextNumber++);
    return pane;
  }

  /** Adopt the member's running process (tmux attach), or start it. */
  private async launch(pane: Pane, m: MemberLaunch): Promise<void> {
    const running = this.opts.adopt?.find((p) => p.id === m.name);
    if (running) pane.attach(running);
    else await this.startPane(pane);
  }

  /** Start or restart a pane's process and record its pid. */
  async startPane(pane: Pane): Promise<void> {
    try {
      await pane.start(this.opts.host);
    } catch (err) {
      pane.note = `failed to start: ${(err as Error).message}`;
      this.opts.store.log.error(`starting ${pane.name} failed`, err);
      return;
    }
    if (pane.pid) await this.opts.store.memberStarted(pane.name, pane.pid);
    this.opts.store.log.info(`started ${pane.name} (pid ${pane.pid ?? '?'})`);
  }

  /** Remove a pane from the screen (after a shutdown handshake). */
  closePane(pane: Pane): void {
    const i = this.panes.indexOf(pane);
    if (i < 0) return;
    this.panes.splice(i, 1);
    pane.dispose();
    if (this.focused >= this.panes.length) this.focused = Math.max(0, this.panes.length - 1);
    this.zoomed = null;
    this.relayout();
  }

  private async paneExited(pane: Pane): Promise<void> {
    const code = pane.exit?.exitCode ?? null;
    this.opts.store.log.info(`${pane.name} ${pane.exitText()}`);
    await this.opts.store.updateMember(pane.name, { status: 'exited', exitCode: code }).catch(() => undefined);
    this.view.refreshRoster();
    this.checkAllGone();
  }

  /** When quitting and every process is gone, finish. */
  checkAllGone(): void {
    if (this.quitting !== 'no' && this.panes.every((p) => p.exited())) void this.finish(0);
  }

  /** Recompute geometry and resize every pane. */
  relayout(): void {
    if (!this.screen) return;
    const cols = this.screen.width as number;
    const rows = this.screen.height as number;
    const side = sidebarWidth(this.opts.sidebar, cols, this.sidebarShown);
    this.geometry = screenLayout(cols, rows, this.opts.layout, this.opts.mainSize, this.panes.length, { position: this.opts.sidebar.position, width: side, hidden: side === 0 }, this.zoomed);
    this.panes.forEach((p, i) => {
      const r = this.geometry.panes[i];
      if (r && r.width > 0 && r.height > 1) {
        const { cols: c, rows: h } = innerSize(r);
        p.resize(c, h);
      }
    });
    this.fullRepaint = true;
    this.requestFrame();
  }

  /** Ask for a frame; several requests within one frame interval coalesce. */
  requestFrame(): void {
    if (this.frameTimer || !this.screen || this.finishing) return;
    const wait = Math.max(0, FRAME_MS - (Date.now() - this.lastFrame));
    const run = (): void => {
      this.frameTimer = null;
      try {
        this.frame();
      } catch (err) {
        // A frame that cannot be drawn is logged once per burst; the next change tries again.
        this.opts.store.log.error('drawing a frame failed', err);
      }
    };
    // A timer costs at least a millisecond even at 0; when a frame is due now, draw on the next turn.
    this.frameTimer = wait === 0 ? { immediate: setImmediate(run) } : { timeout: setTimeout(run, wait) };
  }

  private cancelFrame(): void {
    if (!this.frameTimer) return;
    if ('immediate' in this.frameTimer) clearImmediate(this.frameTimer.immediate);
    else clearTimeout(this.frameTimer.timeout);
    this.frameTimer = null;
  }

  /** Draw everything that changed, then position the cursor. */
  private frame(): void {
    this.lastFrame = Date.now();
    const screen = this.screen;
    const g = this.geometry;
    const full = this.fullRepaint;
    const chrome = full || this.chromeDirty;
    this.fullRepaint = false;
    this.chromeDirty = false;
    const rows = screen.height as number;
    const cols = screen.width as number;
    if (full) paintRows(screen, { left: 0, top: 0, width: cols, height: rows }, [], style());
    let cursor: { x: number; y: number; visible: boolean } = { x: 0, y: 0, visible: false };
    if (g.tooSmall) {
      const lines = wrapWords(cols < 40 ? 'too small: enlarge the terminal' : g.tooSmall, cols);
      const top = Math.max(0, Math.floor((rows - 1 - lines.length) / 2));
      lines.slice(0, Math.max(1, rows - 1)).forEach((l, i) => paintRow(screen, 0, top + i, cols, [{ text: l, attr: style(C.yellow, C.default, { bold: true }) }], style()));
    } else {
      this.panes.forEach((p, i) => {
        const r = g.panes[i];
        if (!r || r.width === 0) return;
        if (chrome || p.dirty) paintRow(screen, r.left, r.top, r.width, titleRow(this.titleInfo(p, i), r.width), style());
        if (full || p.dirty) {
          const c = paintPane(screen, p.term, { left: r.left, top: r.top + 1, width: r.width, height: r.height - 1 });
          if (i === this.focused) cursor = c;
          p.dirty = false;
        } else if (i === this.focused) {
          const c = p.term.cursor;
          cursor = { x: r.left + c.x, y: r.top + 1 + c.y, visible: c.visible };
        }
      });
      if (full) this.paintSeparators();
      if (g.sidebar && chrome) this.paintSidebar(g.sidebar);
    }
    paintRow(screen, g.status.left, g.status.top, g.status.width, statusRow(this.statusInfo(), g.status.width), style(C.black, C.green));
    if (this.reader) this.paintReader(cols, rows);
    if (this.helpOpen) this.paintHelp(cols, rows);
    screen.render();
    const prog = (screen as unknown as { program: { cup(y: number, x: number): void; showCursor(): void; hideCursor(): void } }).program;
    if (this.prompt) {
      prog.cup(g.status.top, Math.min(cols - 1, this.prompt.label.length + 1 + this.prompt.cursor));
      prog.showCursor();
    } else if (cursor.visible && !this.helpOpen && !this.reader && !this.panes[this.focused]?.scrollMode) {
      prog.cup(cursor.y, cursor.x);
      prog.showCursor();
    } else {
      prog.hideCursor();
    }
  }

  private paintSeparators(): void {
    const g = this.geometry;
    const covered = (x: number, y: number): boolean => g.panes.some((r) => x >= r.left && x < r.left + r.width && y >= r.top && y < r.top + r.height) || (g.sidebar !== null && x >= g.sidebar.left && x < g.sidebar.left + g.sidebar.width);
    const cols = this.screen.width as number;
    for (let y = 0; y < g.status.top; y++) {
      for (let x = 0; x < cols; x++) {
        if (covered(x, y)) continue;
        const vertical = covered(x - 1, y) || covered(x + 1, y);
        paintRow(this.screen, x, y, 1, [{ text: vertical ? '│' : '─', attr: SEPARATOR }], SEPARATOR);
      }
    }
  }

  private paintSidebar(r: Rect): void {
    const activities = new Map(this.panes.map((p) => [p.name, this.paneActivity(p)] as const));
    const rows = renderSidebar(this.claudeTeam ? { ...this.snapshot, claudeTeam: this.claudeTeam } : this.snapshot, { width: r.width, height: r.height, sections: this.opts.sidebar.sections, selectedRequest: this.selectedRequest, notices: [...this.notices.entries()].map(([n, t]) => `${n}: ${t}`), activities });
    paintRows(this.screen, r, rows, style());
  }

  private paintReader(cols: number, rows: number): void {
    const req = this.snapshot.requests.find((r) => r.id === this.reader!.id);
    if (!req) {
      this.reader = null;
      return;
    }
    const width = Math.max(10, Math.min(cols, 100));
    const height = Math.max(3, rows - 1);
    const keys = this.opts.keys;
    const keyOf = (a: string): string | undefined => [...keys.bindings].find(([, x]) => x === a)?.[0];
    const [yes, no] = req.type === 'permission' ? ['allows', 'denies'] : ['approves', 'rejects'];
    const answerable = req.status === 'pending' && (req.type === 'plan_approval' || req.type === 'permission');
    const answer = answerable ? ` · ${keys.prefix} ${keyOf('approve') ?? '?'} ${yes}, ${keys.prefix} ${keyOf('reject') ?? '?'} ${no}` : '';
    const box = readerBox(req, this.reader!.top, width, height, `↑↓ PgUp PgDn g G · q closes${answer}`);
    this.reader!.top = box.top;
    this.readerPage = Math.max(1, height - 3);
    paintRows(this.screen, { left: Math.floor((cols - width) / 2), top: 0, width, height }, box.rows, style());
    this.fullRepaint = true;
  }

  /** Rows one page of the reader scrolls. */
  readerPage = 10;

  private paintHelp(cols: number, rows: number): void {
    const box = helpBox(this.opts.keys.prefix, keyRows(this.opts.keys.bindings), cols, rows - 1);
    const width = Math.max(...box.map((r) => textWidth(rowText(r))));
    const rect = { left: Math.max(0, Math.floor((cols - width) / 2)), top: Math.max(0, Math.floor((rows - 1 - box.length) / 2)), width, height: box.length };
    paintRows(this.screen, rect, box, style(C.default, 235));
    this.fullRepaint = true;
  }

  private titleInfo(p: Pane, i: number): Parameters<typeof titleRow>[0] {
    const a = this.paneActivity(p);
    // A Claude Code member's title also carries its tokens and cost: "idle · 28.6k tok · $0.11".
    const activity = { ...a, label: withUsage(a.label, this.snapshot.claude[p.name]) };
    return { index: this.numbers.get(p) ?? i + 1, name: p.name, role: p.role, activity, focused: i === this.focused, zoomed: this.zoomed === i, scrolled: p.scrollMode || p.term.isScrolledBack, note: p.note };
  }

  /** What a pane's member is doing, from its process and the team folder (the same words as the roster). */
  paneActivity(p: Pane): Activity {
    const m = this.snapshot.roster.find((x) => x.name === p.name);
    return memberActivity({
      name: p.name, runtime: m?.runtime ?? 'command', status: m?.reportedStatus ?? 'working', exitCode: m?.exitCode ?? null,
      pending: pendingRequests(this.snapshot), stopping: this.notices.has(p.name), hooks: this.snapshot.claude[p.name]?.state,
      process: { life: p.life, exitCode: p.exit?.exitCode ?? null, signal: p.exit?.signal ?? null },
    });
  }

  /**
   * The pending requests that wait for the person at the keys: plans addressed to the operator (a plan
   * for an agent lead waits for the lead's signed answer, not for the person) and permission requests.
   */
  awaiting(): ProtocolRequest[] {
    return pendingRequests(this.snapshot).filter((r) => (r.type === 'plan_approval' && r.to === OPERATOR) || r.type === 'permission');
  }

  /** The status-line badge, "⚑ 1 plan awaiting C-a a" ("⚑ 2 requests awaiting …" with permissions), or null. */
  private badge(): string | null {
    const waiting = this.awaiting();
    const n = waiting.length;
    if (n === 0) return null;
    const noun = waiting.every((r) => r.type === 'plan_approval') ? 'plan' : 'request';
    const key = [...this.opts.keys.bindings].find(([, a]) => a === 'approve')?.[0];
    return `⚑ ${n} ${noun}${n === 1 ? '' : 's'} awaiting${key ? ` ${this.opts.keys.prefix} ${key}` : ''}`;
  }

  private statusInfo(): Parameters<typeof statusRow>[0] {
    return {
      team: this.opts.team, prefix: this.opts.keys.prefix, prefixPending: this.mode === 'prefix', focused: this.panes[this.focused]?.name ?? '-',
      demo: this.opts.demo, message: this.message, prompt: this.prompt ? { label: this.prompt.label, text: this.prompt.text } : null, backend: this.opts.host.kind,
      badge: this.badge(),
    };
  }

  /** Show a transient message in the status line. */
  say(text: string): void {
    this.message = text;
    if (this.messageTimer) clearTimeout(this.messageTimer);
    this.messageTimer = setTimeout(() => {
      this.message = null;
      this.requestFrame();
    }, this.opts.messageMs ?? 6_000);
    this.opts.store.log.info(text);
    this.requestFrame();
  }

  /** Mark everything for repaint (overlay closed, focus moved). */
  invalidate(): void {
    this.fullRepaint = true;
    this.requestFrame();
  }

  /** Keep the selected request pointing at a pending one. */
  private keepSelection(): void {
    const pending = pendingRequests(this.snapshot);
    if (!pending.some((r) => r.id === this.selectedRequest)) this.selectedRequest = pending.find((r) => r.type === 'plan_approval' || r.type === 'permission')?.id ?? pending[0]?.id ?? null;
  }

  private setupTerminal(): void {
    const { input, output } = this.opts;
    this.guard = new TerminalGuard(input, output);
    this.guard.enter();
    input.resume();
    const onData = (chunk: Buffer): void => {
      try {
        handleInput(this, this.decoder.write(chunk));
      } catch (err) {
        this.opts.store.log.error('handling input failed', err);
        this.say(`input failed: ${(err as Error).message}`);
      }
      if (this.escTimer) clearTimeout(this.escTimer);
      this.escTimer = this.tokenizer.hasPending ? setTimeout(() => flushInput(this), ESC_TIMEOUT_MS) : null;
    };
    input.on('data', onData);
    const onResize = (): void => this.relayout();
    this.screen.on('resize', onResize);
    // Closing the terminal (SIGHUP) or a plain kill: under tmux the members keep running (that is
    // the point of the backend); with node-pty they are ours and go with us.
    const onSignal = (): void => void this.finish(0, this.opts.host.kind !== 'tmux');
    // A stray rejection is a bug somewhere below, not a reason to lose the screen: log it and go on.
    const onRejection = (reason: unknown): void => {
      this.opts.store.log.error('unhandled rejection', reason);
      this.say(`internal error: ${reason instanceof Error ? reason.message : String(reason)} (see teamux.log)`);
    };
    // An uncaught exception leaves no state worth trusting: restore the terminal first, then stop.
    const onException = (err: Error): void => {
      this.opts.store.log.error('uncaught exception', err);
      this.guard?.restore();
      this.farewell = `teamux: internal error: ${err.message}\n  hint: this is a bug; the details are in ${this.opts.store.paths.log}`;
      void this.finish(70);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
    // The terminal can also go away as end-of-file on its input, with or without a SIGHUP.
    input.on('end', onSignal);
    this.cleanups.push(() => {
      input.off('data', onData);
      input.off('end', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    });
  }

  /** Stop everything and restore the terminal. `kill` ends member processes the host still has. */
  async finish(code: number, kill = true): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    this.cancelFrame();
    const log = this.opts.store.log;
    // Each step runs whatever the one before did: the terminal is restored and the promise resolves.
    const step = async (what: string, fn: () => unknown): Promise<void> => {
      try {
        await fn();
      } catch (err) {
        log.error(`${what} failed while quitting`, err);
      }
    };
    await step('on_shutdown hook', () => this.opts.onShutdown?.());
    await step('stopping the panes', () => this.opts.host.dispose({ kill }));
    for (const p of this.panes) await step(`closing ${p.name}`, () => p.dispose());
    await step('the team folder watch', () => this.view.dispose());
    for (const c of this.cleanups.splice(0)) await step('cleanup', c);
    if (this.messageTimer) clearTimeout(this.messageTimer);
    if (this.escTimer) clearTimeout(this.escTimer);
    await step('closing the screen', () => this.screen?.destroy());
    this.guard?.restore();
    if (this.farewell) this.opts.output.write(`${this.farewell}\n`);
    this.finished(code);
  }
}
