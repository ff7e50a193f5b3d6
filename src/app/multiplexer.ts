/**
 * The multiplexer's effect runner. Its state is one MuxState value that only the reducer
 * (src/mux/reduce.ts) replaces; this class owns what the reducer cannot hold: the panes' emulators
 * and processes (by pane id), the Surface, the team folder watch, timers on the injected clock and
 * the work in flight. `dispatch(event)` runs the reducer and executes its effects; what the effects
 * cause (a process exiting, an answer written, a handshake step) comes back as further events. As in
 * tmux's server loop, a pane's data callback only feeds its emulator and marks it dirty; one frame
 * (~16 ms, or at once for a key's echo: frames.ts) draws everything dirty (mux-draw.ts).
 */
import type { PaneSpec } from '../host/types.js';
import { systemClock, type Clock, type ClockTimer } from '../host/clock.js';
import type { Effect, MuxEvent } from '../mux/events.js';
import { encodeForPane, plainKeyTarget } from '../mux/input.js';
import { reduce } from '../mux/reduce.js';
import { broadcastReport } from '../mux/commands.js';
import { awaiting, focusedPane, initialState, layoutOf, readerSize, type MemberLaunch, type MuxState } from '../mux/state.js';
import { OPERATOR } from '../protocol/operator.js';
import { innerSize, type ScreenLayout } from '../mux/geometry.js';
import { readerTextRows } from '../ui/reader.js';
import { TerminalScreen } from '../ui/screen.js';
import type { Surface } from '../ui/surface.js';
import { Attention, DEFAULT_ATTENTION } from './attention.js';
import type { WebView } from './web-view.js';
import type { MuxOptions } from './mux-options.js';
import { guardProcess } from './process-guard.js';
import { watchClaudeWake } from '../agents/claude/wake.js';
import { FrameScheduler, type FrameCause, type FrameFlags } from './frames.js';
import type { HoldableSource } from './read-pacing.js';
import { drawFrame } from './mux-draw.js';
import { Pane, SCROLLBACK_LINES } from './pane.js';
import { termFactsFor } from './emulator-facts.js';
import { handshake, recordExit, startPane, terminateAll } from './pane-lifecycle.js';
import { watchSpawns } from './spawn-watch.js';
import { TeamView, type TeamSnapshot } from './team-view.js';
import { attachTmuxBridge } from '../agents/claude/native-teams.js';
import { followTeammates } from '../agents/claude/tmux-teammates.js';
import type { ClaudeTeamView } from '../store/claude-team-files.js';
import { spawnMethod } from '../host/pty-spawn.js';
import { startupMark, startupTimeline } from '../host/startup-marks.js';

/** How long the first frame waits for the panes' first output (start-up, see firstOutput). */
export const FIRST_FRAME_WAIT_MS = 50;

export type { MemberLaunch } from '../mux/state.js';
export type { MuxOptions } from './mux-options.js';

/** The running multiplexer. */
export class Multiplexer {
  // configuration
  readonly opts: MuxOptions;
  private readonly clock: Clock;
  // state: replaced by the reducer only
  private st: MuxState;
  // resources the state names by pane id
  private readonly live = new Map<string, Pane>();
  private readonly launches = new Map<string, Promise<void>>();
  private deferred: Array<() => void> = [];
  private relayoutQueued = false;
  private depth = 0;
  // screen
  private surface: Surface | null = null;
  /** Whether frames are drawn: from the first one, once the screen is up and the panes' first output read. */
  private drawing = false;
  private geometry!: ScreenLayout;
  private readonly frames: FrameScheduler;
  // team folder
  readonly view: TeamView;
  private attention: Attention | null = null;
  /** The web view, when the layout or --web asked for it and its port could be had. */
  private web: WebView | null = null;
  // life
  private readonly timers = new Map<string, ClockTimer>();
  private readonly inflight = new Set<Promise<unknown>>();
  private finishing = false;
  private finished!: (code: number) => void;
  private readonly done: Promise<number>;
  private readonly cleanups: Array<() => unknown> = [];
  /** Whether frames are still noted in the start-up timeline (until the screen is up). */
  private timeline = true;
  /** Said on the restored terminal after the screen closes (a crash, a failed start, a detach). */
  farewell: string | null = null;

  constructor(opts: MuxOptions) {
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    this.view = new TeamView(opts.store);
    const cfg = { team: opts.team, keys: opts.keys, layout: opts.layout, mainSize: opts.mainSize, sidebar: opts.sidebar, hostKind: opts.host.kind, demo: opts.demo, messageMs: opts.messageMs ?? 6_000 };
    this.st = initialState(cfg, this.view.snapshot());
    this.done = new Promise((resolve) => (this.finished = resolve));
    this.frames = new FrameScheduler(this.clock, (flags) => this.frame(flags), (err) => opts.store.log.error('drawing a frame failed', err));
  }

  /** dispatch, bound, for work that reports back. */
  private readonly dispatcher = (event: MuxEvent): void => this.dispatch(event);

  /** The current state (a value: it is replaced, never changed, by each event). */
  get state(): MuxState {
    return this.st;
  }

  /** The pane objects, in layout order. */
  get panes(): Pane[] {
    return this.st.panes.map((p) => this.live.get(p.id)).filter((p): p is Pane => p !== undefined);
  }

  /** The team folder as the screen last saw it. */
  get snapshot(): TeamSnapshot {
    return this.st.snapshot as TeamSnapshot;
  }

  /** A native lead's Claude Code team, as its files show it (see native-teams.ts); merged into every snapshot. */
  claudeTeam: ClaudeTeamView | null = null;

  private withClaudeTeam(snapshot: TeamSnapshot): TeamSnapshot {
    return this.claudeTeam ? { ...snapshot, claudeTeam: this.claudeTeam } : snapshot;
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
    const { store, output } = this.opts;
    // The keys act as the operator (`human`), not as the lead.
    store.actAsOperator();
    const surface = new TerminalScreen(this.opts.input, output, `teamux: ${this.opts.team}`, this.clock);
    this.surface = surface;
    startupMark('screen');
    this.setupSignals(surface);
    this.attention = new Attention(this.opts.attention ?? DEFAULT_ATTENTION, this.opts.team, (d) => output.write(d), store.log);
    this.cleanups.push(() => this.attention?.dispose());
    this.dispatch({ kind: 'resize', cols: surface.cols, rows: surface.rows });
    this.relayout();
    // The team folder watch's first load reads the folder on this thread. With the sidebar shown, it
    // starts now, while the panes start, so the first frame may show the board; with the sidebar
    // hidden, nothing on the first frame needs it, and it starts once the panes have printed, so that
    // their first output is not read behind it.
    let watching: Promise<void> | null = null;
    const watch = (): void => {
      watching ??= this.view.start().then(() => this.dispatch({ kind: 'team', snapshot: this.withClaudeTeam(this.view.snapshot()) }));
    };
    if (layoutOf(this.st).sidebar !== null) watch();
    const sub = this.view.onChange((snapshot) => this.dispatch({ kind: 'team', snapshot: this.withClaudeTeam(snapshot) }));
    this.cleanups.push(() => sub.dispose());
    // A native Claude Code lead's tmux stand-in listens before the lead starts.
    if (this.opts.nativeTeams) this.cleanups.push(await attachTmuxBridge(this, this.opts.nativeTeams));
    // Every pane gets its final size before its process starts (or its screen is replayed).
    this.batch(() => {
      for (const m of this.opts.members) this.dispatch({ kind: 'open-pane', launch: m });
    });
    // The first frame shows what the panes first printed, instead of empty panes and their output a
    // frame later: it waits until every pane has printed (or ended), FIRST_FRAME_WAIT_MS at most.
    await this.firstOutput();
    startupMark('first output');
    watch();
    this.drawing = true;
    this.frames.full = true;
    this.requestFrame();
    await Promise.all(this.opts.members.map((m) => this.launches.get(m.name)));
    startupMark('panes');
    // Panes the tmux stand-in's bridge opens in the session come and go as panes here.
    this.own(await followTeammates(this));
    await watching;
    if (this.opts.web) {
      // Loaded only when asked for: a screen without it loads no http, tls or page code.
      const { startWebView } = await import('./web-view.js');
      const web = await startWebView(this, store, this.opts.web);
      if (web) {
        this.web = web;
        if (this.attention) this.attention.linkTo = (r) => web.linkTo(r);
        this.own(() => web.dispose());
      }
    }
    const launch = this.opts.spawnLaunch;
    if (launch) {
      const spawns = await watchSpawns(store, {
        say: (text) => this.dispatch({ kind: 'say', text }),
        open: async (req) => {
          const l = launch(req);
          if ('error' in l) this.dispatch({ kind: 'say', text: `cannot spawn ${req.name}: ${l.error}` });
          else await this.openPane(l);
        },
      });
      this.own(() => spawns.dispose());
    }
    const claude = this.opts.members.filter((m) => m.cli !== undefined).map((m) => m.name);
    if (claude.length > 0) {
      const running = (name: string): Pane | undefined => { const p = this.live.get(name); return p?.life === 'running' ? p : undefined; };
      const wake = await watchClaudeWake(store, claude, running, { targetOf: running, startedAt: (name) => this.live.get(name)?.startedAt ?? this.clock.now(), graceMs: this.opts.shutdownTimeoutMs });
      this.own(() => wake.dispose());
    }
    this.requestFrame();
    startupMark('up');
    void this.opts.greeting?.().then((text) => {
      if (text && !this.finishing) this.dispatch({ kind: 'say', text });
    }, (err: unknown) => store.log.error('the start-up summary failed', err));
    this.timeline = false;
    store.log.info(`start-up (ms since the process began): ${startupTimeline()}`);
    // tmux starts the panes of the tmux backend itself; only this process's ptys have a method to name.
    store.log.info(this.opts.host.kind === 'pty' ? `panes start with ${spawnMethod()}` : 'panes start in tmux (its own fork)');
    this.opts.onScreenUp?.();
  }

  /**
   * Keep a cleanup for finish(); when the screen is already finishing (quit or detached while start-up
   * was still waiting), run it now, so a watch set up late does not keep the process alive.
   */
  private own(cleanup: () => unknown): void {
    if (this.finishing) void Promise.resolve().then(cleanup).catch((err) => this.opts.store.log.error('cleanup failed', err));
    else this.cleanups.push(cleanup);
  }

  /** While start-up waits for the panes' first output: called when a pane printed. */
  private outputSeen: (() => void) | null = null;

  /** Resolves once every pane has printed (or shown the screen it was adopted with) or ended, FIRST_FRAME_WAIT_MS at most. */
  private firstOutput(): Promise<void> {
    const ready = (): boolean => [...this.live.values()].every((p) => p.printed || p.life === 'exited');
    if (ready()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.outputSeen = null;
        resolve();
      };
      // A wall-clock cap, not the injected clock: a test's fake clock must not hold the screen back.
      const timer = setTimeout(done, FIRST_FRAME_WAIT_MS);
      this.outputSeen = () => {
        if (ready()) done();
      };
    });
  }

  /** Open a pane for a member and start (or adopt) its process; resolves once it has started. */
  async openPane(m: MemberLaunch): Promise<Pane | undefined> {
    this.dispatch({ kind: 'open-pane', launch: m });
    await this.launches.get(m.name);
    return this.live.get(m.name);
  }

  /** Run a launch in an existing pane's slot (tmux respawn-pane); resolves once it has started. */
  async replacePane(old: string, m: MemberLaunch): Promise<Pane | undefined> {
    this.dispatch({ kind: 'replace-pane', pane: old, launch: m });
    await this.launches.get(m.name);
    return this.live.get(m.name);
  }

  /**
   * Feed one event to the reducer and carry out its effects. This is the entry point for other
   * modules too: `open-pane`, `close-pane` and `set-pane-title` change the panes at run time.
   */
  dispatch(event: MuxEvent): void {
    if (this.finishing && event.kind !== 'pane-exit') return;
    const before = this.st;
    let effects: readonly Effect[];
    try {
      [this.st, effects] = reduce(before, event);
    } catch (err) {
      // A reducer that throws is a bug; the screen stays and says so.
      this.opts.store.log.error(`handling ${event.kind} failed`, err);
      return;
    }
    this.batch(() => {
      for (const fx of effects) this.guarded(fx.kind, () => this.apply(fx));
    });
    if (this.st !== before) this.requestFrame();
  }

  /** Run `fn`; pane launches it causes start once the outermost batch ends (all panes sized first). */
  private batch(fn: () => void): void {
    this.depth++;
    try {
      fn();
    } finally {
      this.depth--;
    }
    if (this.depth === 0) for (const run of this.deferred.splice(0)) run();
  }

  /**
   * Run one piece of work an effect causes: whether it throws or rejects, the failure goes to the
   * status line and teamux.log, never to the process; finish() waits for work still in flight.
   */
  private guarded(what: string, work: () => unknown): void {
    const failed = (err: unknown): void => {
      this.opts.store.log.error(`${what} failed`, err);
      this.dispatch({ kind: 'say', text: `${what} failed: ${err instanceof Error ? err.message : String(err)}` });
    };
    try {
      const r = work();
      if (r instanceof Promise) {
        const tracked = r.catch(failed).finally(() => this.inflight.delete(tracked));
        this.inflight.add(tracked);
      }
    } catch (err) {
      failed(err);
    }
  }

  private apply(fx: Effect): unknown {
    const pane = 'pane' in fx ? this.live.get(fx.pane) : undefined;
    switch (fx.kind) {
      case 'spawn': return this.spawn(fx.pane, fx.launch);
      case 'restart':
        if (!pane) return;
        pane.freshNext = fx.fresh === true;
        pane.term.write(`\r\n\x1b[0m[teamux: restarting${fx.fresh ? ' with a fresh conversation' : ''}]\r\n`);
        return startPane(this.opts.store, this.opts.host, pane, this.dispatcher).then(() => this.dispatch({ kind: 'say', text: `restarted ${pane.name}` }));
      case 'dispose':
        pane?.dispose();
        this.live.delete(fx.pane);
        return;
      case 'signal': return pane?.kill(fx.signal);
      case 'type':
        if (!pane) return;
        // The operator's keys: a Claude wake waits until they have stopped typing here.
        pane.lastTypedAt = Date.now();
        // Only cursor keys are re-encoded: other keys go out before any read of the emulator, and a
        // view scrolled back returns to the bottom after the write (the echo waits for the write only).
        pane.write(fx.raw.charCodeAt(0) === 0x1b ? encodeForPane(fx.raw, pane.term.applicationCursorKeys) : fx.raw);
        if (pane.term.isScrolledBack) {
          pane.term.scrollToBottom();
          pane.markDirty();
        }
        return;
      case 'write': return pane?.write(fx.data);
      case 'paste':
        if (!pane) return;
        pane.term.scrollToBottom();
        pane.markDirty();
        pane.lastTypedAt = Date.now();
        return pane.write(pane.term.modes.bracketedPaste ? `\x1b[200~${fx.text}\x1b[201~` : fx.text);
      case 'scroll':
        if (!pane) return;
        if (fx.by === 'bottom') pane.term.scrollToBottom();
        else pane.term.scrollBy(fx.by === 'top' ? -1_000_000 : fx.by);
        pane.markDirty();
        if (fx.report) this.dispatch({ kind: 'scrolled', pane: fx.pane, scrolledBack: pane.term.isScrolledBack });
        return;
      case 'report-focus': return pane?.reportFocus(fx.focused);
      case 'report-mouse': return pane?.reportMouse(fx.report);
      case 'pane-dirty': return pane?.markDirty();
      case 'answer': return this.guarded(fx.label, async () => {
        const r = await this.opts.store.answerRequest(fx.request, fx.to, fx.approve, fx.text);
        this.dispatch(r.ok ? { kind: 'answered', request: fx.request, approve: fx.approve, text: fx.done } : { kind: 'say', text: `${fx.failed}: ${r.message}` });
      });
      case 'broadcast': return this.guarded(fx.label, async () => {
        const r = await this.opts.store.broadcast(OPERATOR, fx.text);
        // A member without a pane here (remote) may well be running: only an exited pane counts as not.
        this.dispatch({ kind: 'say', text: r.ok ? broadcastReport(r.value.map((m) => m.to), (n) => this.live.get(n)?.life !== 'exited') : `broadcast failed: ${r.message}` });
      });
      case 'shutdown':
        for (const id of fx.panes) this.guarded('shutdown', () => handshake(this.opts.store, id, this.live.get(id), this.opts.shutdownTimeoutMs, this.clock, this.dispatcher));
        return;
      case 'terminate-all': return terminateAll(this.panes, this.dispatcher);
      case 'member-exited': return recordExit(this.opts.store, fx.pane, fx.code, fx.exitText).then(() => this.finishing || this.view.refreshRoster());
      case 'finish':
        if (fx.farewell) this.farewell = fx.farewell;
        return void this.finish(fx.code, fx.kill);
      // once per dispatch, after its effects: a batch of panes opened together is laid out once
      case 'relayout': return this.relayoutSoon();
      case 'repaint': this.frames.full = true; return;
      case 'chrome': this.frames.chrome = true; return;
      case 'timer':
        this.clock.clearTimeout(this.timers.get(fx.name));
        this.timers.set(fx.name, this.clock.setTimeout(() => this.dispatch(fx.event), fx.ms));
        return;
      case 'log': return this.opts.store.log.info(fx.text);
      case 'attention': return this.attention?.update(awaiting(this.st));
      case 'web-link': return this.dispatch(this.web ? this.web.panel() : { kind: 'say', text: 'the web view is off: start with --web (or web: in the layout)' });
    }
    // Every effect has a case above: a new kind without one is a type error here.
    const unhandled: never = fx;
    return unhandled;
  }

  /** Create a pane's emulator; its process starts once every pane of the batch has its size. */
  private spawn(id: string, m: MemberLaunch): void {
    // The emulator is made at the size the pane gets (the state already has the pane), so its
    // scrollback is not reflowed from 80x24; the others are resized once, when the batch ends.
    const at = layoutOf(this.st).panes[this.st.panes.findIndex((p) => p.id === id)];
    const size = at && at.width > 0 && at.height > 1 ? innerSize(at) : { cols: 80, rows: 24 };
    const spec: PaneSpec = { id, command: m.command, args: m.args, cwd: m.cwd, env: m.env, ...size };
    const pane = new Pane(spec, m.role, m.isLead, this.opts.host.kind === 'pty', this.opts.scrollback ?? SCROLLBACK_LINES, (cause, source) => this.requestFrame(cause, source), (p) => this.dispatch({ kind: 'pane-exit', pane: p.name, exitText: p.exitText(), code: p.exit?.exitCode ?? null }), this.clock);
    pane.endsOnApproval = m.cli !== undefined;
    pane.cli = m.cli;
    pane.restartEnv = m.restartEnv ?? null;
    pane.argsAtStart = m.argsAtStart ?? null;
    pane.speaksProtocol = m.speaksProtocol;
    pane.echoAhead = this.showEchoAhead;
    this.live.set(id, pane);
    this.relayoutSoon();
    let started!: () => void;
    this.launches.set(id, new Promise<void>((resolve) => (started = resolve)));
    this.deferred.push(() => {
      const running = this.opts.adopt?.find((p) => p.id === id);
      if (running) {
        pane.attach(running);
        this.dispatch({ kind: 'pane-started', pane: id, error: null });
        started();
      } else this.guarded(`starting ${id}`, () => startPane(this.opts.store, this.opts.host, pane, this.dispatcher).finally(started));
    });
  }

  /** Relayout now, or once when the outermost batch ends (before the launches it deferred). */
  private relayoutSoon(): void {
    if (this.depth === 0) return this.relayout();
    if (this.relayoutQueued) return;
    this.relayoutQueued = true;
    this.deferred.unshift(() => {
      this.relayoutQueued = false;
      this.relayout();
    });
  }

  /** Recompute geometry from the state and resize every pane. */
  private relayout(): void {
    this.geometry = layoutOf(this.st);
    this.st.panes.forEach((p, i) => {
      const r = this.geometry.panes[i];
      const pane = this.live.get(p.id);
      if (pane && r && r.width > 0 && r.height > 1) {
        const { cols, rows } = innerSize(r);
        pane.resize(cols, rows);
      }
    });
    this.frames.full = true;
    this.requestFrame();
  }

  /** Ask for a frame (titles and contents of dirty panes, the status line); an echo frame is drawn at once, and output's source waits for it. */
  requestFrame(cause: FrameCause = 'change', source?: HoldableSource): void {
    if (this.drawing) this.frames.request(cause, source);
    else if (cause !== 'change') this.outputSeen?.();
  }

  /**
   * A printable key typed alone goes straight to the focused pane when the reducer would only pass it
   * through (plainKeyTarget): the same `type` effect, without the tokenizer, the event and the reducer
   * on the echo's path. Otherwise (false) it takes the whole route.
   */
  private typePlainKey(key: string): boolean {
    if (this.finishing) return false;
    const id = plainKeyTarget(this.st, key);
    if (id === null) return false;
    this.guarded('type', () => this.apply({ kind: 'type', pane: id, raw: key }));
    return true;
  }

  /**
   * A key's echo in the focused pane, shown on the terminal before its parse (Pane.echoAhead): where
   * the pane is drawn as it is (no overlay, prompt or scroll mode, the screen big enough) and the text
   * fits inside it. The surface writes it only where the terminal's cursor is known to be there.
   */
  private readonly showEchoAhead = (pane: Pane, at: { x: number; y: number }, text: string): void => {
    const s = this.st;
    if (!this.drawing || !this.surface || this.finishing || s.help || s.reader || s.prompt || this.geometry.tooSmall) return;
    const p = s.panes[s.focused];
    const r = this.geometry.panes[s.focused];
    if (!p || !r || p.id !== pane.name || p.scrollMode || at.x + text.length >= r.width || at.y + 1 >= r.height) return;
    this.surface.echoAt(r.left + at.x, r.top + 1 + at.y, text);
  };

  private frame(flags: FrameFlags): void {
    if (!this.surface) return;
    if (this.timeline) startupMark('frame');
    const panes = this.st.panes.map((p) => this.live.get(p.id));
    // Overlays are painted over the panes: the next frame repaints everything under them.
    if (drawFrame(this.surface, { state: this.st, geometry: this.geometry, panes, backend: this.opts.host.kind, ...flags })) this.frames.full = true;
    // When the frame was drawn and written: the timeline's 'frame' says when it began.
    if (this.timeline) startupMark('drawn');
  }

  /** While the reader is open: how many rows its request's text takes (the view lays it out; the reducer scrolls in it). */
  private readerRows(): number | undefined {
    const open = this.st.reader;
    const req = open ? this.st.snapshot.requests.find((r) => r.id === open.id) : undefined;
    return req ? readerTextRows(req, readerSize(this.st).width) : undefined;
  }

  private setupSignals(surface: Surface): void {
    const subs = [
      surface.takePlainKeys((key) => this.typePlainKey(key)),
      surface.onInput((token) => this.dispatch({ kind: 'input', token, terms: termFactsFor(token, this.live, focusedPane(this.st)?.id), readerRows: this.readerRows() })),
      surface.onResize((cols, rows) => this.dispatch({ kind: 'resize', cols, rows })),
      // The terminal can also go away as end-of-file on its input, with or without a SIGHUP.
      surface.onEnd(() => this.dispatch({ kind: 'hangup' })),
      guardProcess({
        hangup: () => this.dispatch({ kind: 'hangup' }),
        // A stray rejection is a bug somewhere below, not a reason to lose the screen: log it and go on.
        rejection: (reason) => {
          this.opts.store.log.error('unhandled rejection', reason);
          this.dispatch({ kind: 'say', text: `internal error: ${reason instanceof Error ? reason.message : String(reason)} (see teamux.log)` });
        },
        // An uncaught exception leaves no state worth trusting: restore the terminal first, then stop.
        exception: (err) => {
          this.opts.store.log.error('uncaught exception', err);
          surface.restore();
          this.farewell = `teamux: internal error: ${err.message}\n  hint: this is a bug; the details are in ${this.opts.store.paths.log}`;
          void this.finish(70);
        },
      }),
    ];
    this.cleanups.push(() => {
      for (const s of subs) s.dispose();
    });
  }

  /**
   * Stop everything and restore the terminal. `kill` ends member processes the host still has. Work
   * still in flight (a member's exit being recorded, an answer being written) is awaited, so nothing
   * writes into the team folder once this resolves.
   */
  async finish(code: number, kill = true): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    this.frames.stop();
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
    for (const p of this.live.values()) await step(`closing ${p.name}`, () => p.dispose());
    await step('the team folder watch', () => this.view.dispose());
    for (const c of this.cleanups.splice(0)) await step('cleanup', c);
    for (const t of this.timers.values()) this.clock.clearTimeout(t);
    while (this.inflight.size > 0) await step('work in flight', () => Promise.allSettled([...this.inflight]));
    await step('closing the screen', () => this.surface?.destroy());
    this.surface?.restore();
    if (this.farewell) this.opts.output.write(`${this.farewell}\n`);
    this.finished(code);
  }
}
