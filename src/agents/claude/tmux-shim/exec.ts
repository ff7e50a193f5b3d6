/**
 * Running one tmux command line against a `TmuxSurface`: the panes of the Claude Code lead's window
 * as the multiplexer shows them, plus what the stand-in itself keeps (options, titles). This file
 * decides what each command means and what it prints, in tmux 3.3a's words; the surface only opens,
 * respawns, retitles and closes panes. Nothing here touches a socket, a file or a process, so the
 * recorded transcripts of Claude Code's calls are replayed against it in unit tests.
 */
import { parseCommand, parseSize, splitGlobal, type TmuxCommand } from './argv.js';
import { expandFormat } from './format.js';
import { knownOption, normalizeValue, OptionStore } from './options.js';

/** A pane as tmux formats describe it. */
export interface ShimPane {
  /** `%N`. */
  id: string;
  title: string;
  left: number;
  top: number;
  width: number;
  height: number;
  active: boolean;
  dead: boolean;
  pid: number | null;
  cwd: string;
  /** The program it runs (pane_current_command). */
  command: string;
}

/** What a split or respawn runs. */
export interface PaneRun {
  /** The shell command words after `--` (one word runs through sh -c, as tmux does). */
  words: string[];
  cwd: string | null;
  /** `-e VAR=value` settings. */
  env: Record<string, string>;
}

/** The narrow interface to the multiplexer (see src/agents/claude/tmux-bridge.ts). */
export interface TmuxSurface {
  readonly session: string;
  readonly serverPid: number;
  /** The window's size in cells. */
  window(): { width: number; height: number };
  /** The panes of the lead's window, in layout order. */
  panes(): ShimPane[];
  /** Open a new pane next to `target`; resolves with its `%N` id. */
  split(target: ShimPane, run: PaneRun, how: { horizontal: boolean; size: string | null; detached: boolean }): Promise<{ id: string } | { error: string }>;
  /** Run a new command in a pane (its current process is killed first). */
  respawn(target: ShimPane, run: PaneRun): Promise<{ ok: true } | { error: string }>;
  setTitle(target: ShimPane, title: string): void;
  focus(target: ShimPane): void;
  kill(target: ShimPane): Promise<void>;
}

/** A command's answer, as the client prints it. `notes` go to teamux.log. */
export interface ShimAnswer {
  out: string;
  err: string;
  code: number;
  notes: string[];
}

/** Who is calling: the caller's $TMUX_PANE. */
export interface ShimCaller {
  pane: string | null;
}

const WINDOW_ID = '@0';
const SESSION_ID = '$0';
const VERSION = '3.3a';

const fail = (err: string, notes: string[] = []): ShimAnswer => ({ out: '', err: `${err}\n`, code: 1, notes });

/** The stand-in's state across calls: option values. */
export class TmuxShim {
  readonly options = new OptionStore();

  constructor(private readonly surface: TmuxSurface) {}

  /** Run one command line (argv after `tmux`). Never throws for bad input: the answer carries the error. */
  async run(argv: readonly string[], caller: ShimCaller): Promise<ShimAnswer> {
    const inv = splitGlobal(argv);
    if ('error' in inv) return fail(inv.error, [`tmux stand-in: ${inv.error} in ${JSON.stringify(argv)}`]);
    if (inv.version) return { out: `tmux ${VERSION}\n`, err: '', code: 0, notes: [] };
    const cmd = parseCommand(inv.command);
    if ('error' in cmd) return fail(cmd.error, [`tmux stand-in: ${cmd.error} in ${JSON.stringify(argv)}`]);
    return this.exec(cmd, caller);
  }

  private async exec(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    switch (cmd.name) {
      case 'display-message': return this.display(cmd, caller);
      case 'list-panes': return this.listPanes(cmd, caller);
      case 'split-window': return this.split(cmd, caller);
      case 'set-option': return this.setOption(cmd, caller);
      case 'show-options': return this.showOptions(cmd, caller);
      case 'select-pane': return this.selectPane(cmd, caller);
      case 'respawn-pane': return this.respawn(cmd, caller);
      case 'kill-pane': return this.killPane(cmd, caller);
      case 'has-session': return this.resolve(cmd.flags.get('t'), caller, 'session').then((t) => ('error' in t ? fail(t.error) : ok('')));
      case 'list-sessions': return this.format(cmd.flags.get('F') ?? '#{session_name}: #{session_windows} windows', this.surface.panes().find((p) => p.active) ?? null).then(lineOrFail);
    }
  }

  /** A target (`%N`, `@0`, `$0`, the session name, `session:`), or the caller's pane. */
  private async resolve(target: string | undefined, caller: ShimCaller, kind: 'pane' | 'window' | 'session'): Promise<ShimPane | { error: string }> {
    const panes = this.surface.panes();
    const active = panes.find((p) => p.active) ?? panes[0];
    if (target === undefined || target === '') {
      const own = caller.pane ? panes.find((p) => p.id === caller.pane) : undefined;
      return own ?? active ?? { error: 'no current pane' };
    }
    if (target.startsWith('%')) return panes.find((p) => p.id === target) ?? { error: `can't find pane: ${target}` };
    if (target === WINDOW_ID || target === SESSION_ID || target === this.surface.session || target === `${this.surface.session}:` || target === `${this.surface.session}:${WINDOW_ID}`) {
      return active ?? { error: `can't find ${kind}: ${target}` };
    }
    return { error: `can't find ${kind}: ${target}` };
  }

  /** The format variables of a pane. */
  private variable(p: ShimPane | null, name: string): string | undefined {
    const w = this.surface.window();
    const panes = this.surface.panes();
    switch (name) {
      case 'session_name': return this.surface.session;
      case 'session_id': return SESSION_ID;
      case 'session_windows': return '1';
      case 'window_id': return WINDOW_ID;
      case 'window_index': return '0';
      case 'window_name': return this.surface.session;
      case 'window_active': return '1';
      case 'window_width': return String(w.width);
      case 'window_height': return String(w.height);
      case 'window_panes': return String(panes.length);
      case 'window_zoomed_flag': return '0';
      case 'window_bigger': return '';
      case 'client_termtype': case 'client_tty': case 'client_name': return '';
      case 'pid': return String(this.surface.serverPid);
      case 'version': return VERSION;
    }
    if (p) {
      switch (name) {
        case 'pane_id': return p.id;
        case 'pane_index': return String(panes.indexOf(p));
        case 'pane_title': return p.title;
        case 'pane_width': return String(p.width);
        case 'pane_height': return String(p.height);
        case 'pane_top': return String(p.top);
        case 'pane_left': return String(p.left);
        case 'pane_bottom': return String(p.top + p.height - 1);
        case 'pane_right': return String(p.left + p.width - 1);
        case 'pane_active': return p.active ? '1' : '0';
        case 'pane_dead': return p.dead ? '1' : '0';
        case 'pane_pid': return p.pid === null ? '' : String(p.pid);
        case 'pane_current_path': return p.cwd;
        case 'pane_current_command': return p.command;
        case 'pane_in_mode': return '0';
      }
    }
    return this.options.formatValue(name, p?.id ?? null, WINDOW_ID);
  }

  private async format(fmt: string, p: ShimPane | null): Promise<{ line: string; notes: string[] } | { error: string }> {
    const r = expandFormat(fmt, (name) => this.variable(p, name));
    if (!r.ok) return { error: r.error };
    const notes = r.unknown.length > 0 ? [`tmux stand-in: unknown format variable${r.unknown.length > 1 ? 's' : ''} ${r.unknown.map((n) => `#{${n}}`).join(', ')} expanded to nothing (as tmux does)`] : [];
    return { line: r.text, notes };
  }

  private async display(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    const t = await this.resolve(cmd.flags.get('t'), caller, 'pane');
    if ('error' in t) return fail(t.error);
    const fmt = cmd.args[0] ?? cmd.flags.get('F') ?? '';
    if (!cmd.flags.has('p')) return { out: '', err: '', code: 0, notes: [`tmux stand-in: display-message without -p shows nothing in teamux: ${fmt}`] };
    return lineOrFail(await this.format(fmt, t));
  }

  private async listPanes(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    const t = await this.resolve(cmd.flags.get('t'), caller, 'window');
    if ('error' in t) return fail(t.error);
    const fmt = cmd.flags.get('F') ?? '#{pane_index}: [#{pane_width}x#{pane_height}] #{pane_id}#{?pane_active, (active),}';
    const lines: string[] = [];
    const notes: string[] = [];
    for (const p of this.surface.panes()) {
      const r = await this.format(cmd.flags.has('F') ? fmt : '#{pane_index}: [#{pane_width}x#{pane_height}] #{pane_id}', p);
      if ('error' in r) return fail(r.error);
      lines.push(!cmd.flags.has('F') && p.active ? `${r.line} (active)` : r.line);
      notes.push(...r.notes);
    }
    return { out: lines.map((l) => `${l}\n`).join(''), err: '', code: 0, notes: [...new Set(notes)] };
  }

  private async split(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    const t = await this.resolve(cmd.flags.get('t'), caller, 'pane');
    if ('error' in t) return fail(t.error);
    const size = cmd.flags.get('l') ?? null;
    if (size !== null && !parseSize(size)) return fail(`size is invalid: ${size}`);
    const run = runOf(cmd);
    if ('error' in run) return fail(run.error);
    const made = await this.surface.split(t, run, { horizontal: cmd.flags.has('h'), size, detached: cmd.flags.has('d') });
    if ('error' in made) return fail(`create pane failed: ${made.error}`, [`tmux stand-in: split-window failed: ${made.error}`]);
    if (!cmd.flags.has('P')) return ok('');
    const pane = this.surface.panes().find((p) => p.id === made.id) ?? null;
    return lineOrFail(await this.format(cmd.flags.get('F') ?? '#{session_name}:#{window_index}.#{pane_index}', pane));
  }

  private async setOption(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    const [name, value] = cmd.args;
    if (name === undefined) return fail('set-option: no option given');
    if (!knownOption(name)) {
      if (cmd.flags.has('q')) return ok('', [`tmux stand-in: set-option -q of unknown option ${name} ignored`]);
      return fail(`invalid option: ${name}`, [`tmux stand-in: set-option of an option it does not know: ${name}`]);
    }
    const key = await this.scopeKey(cmd, caller);
    if (typeof key !== 'string') return fail(key.error);
    if (cmd.flags.has('u') || cmd.flags.has('U')) {
      this.options.set(key, name, undefined);
      return ok('');
    }
    const v = normalizeValue(name, value);
    if (!v.ok) return fail(`${v.error}: ${name}`);
    if (cmd.flags.has('o') && this.options.get(name, null, null) !== undefined && key === 'g') return ok('');
    this.options.set(key, name, cmd.flags.has('a') ? `${this.options.get(name, null, null) ?? ''}${v.value}` : v.value);
    return ok('');
  }

  private async showOptions(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    const name = cmd.args[0];
    if (name === undefined) return fail('show-options: teamux\'s tmux stand-in shows one named option at a time', ['tmux stand-in: show-options without an option name']);
    if (!knownOption(name)) return cmd.flags.has('q') ? ok('') : fail(`invalid option: ${name}`, [`tmux stand-in: show-options of an option it does not know: ${name}`]);
    let pane: string | null = null;
    if (!cmd.flags.has('g')) {
      const t = await this.resolve(cmd.flags.get('t'), caller, 'pane');
      if ('error' in t) return fail(t.error);
      pane = cmd.flags.has('p') ? t.id : null;
    }
    const v = this.options.get(name, pane, cmd.flags.has('g') ? null : WINDOW_ID) ?? '';
    return ok(cmd.flags.has('v') ? `${v}\n` : `${name} ${v}\n`);
  }

  private async selectPane(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    const t = await this.resolve(cmd.flags.get('t'), caller, 'pane');
    if ('error' in t) return fail(t.error);
    const title = cmd.flags.get('T');
    if (title !== undefined) this.surface.setTitle(t, title);
    // -P style is tmux's colouring; teamux draws its own titles and borders.
    if (title === undefined && !cmd.flags.has('P')) this.surface.focus(t);
    return ok('');
  }

  private async respawn(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    const t = await this.resolve(cmd.flags.get('t'), caller, 'pane');
    if ('error' in t) return fail(t.error);
    if (!t.dead && !cmd.flags.has('k')) return fail(`respawn pane failed: pane ${t.id} still active`);
    const run = runOf(cmd);
    if ('error' in run) return fail(run.error);
    const r = await this.surface.respawn(t, run);
    return 'error' in r ? fail(`respawn pane failed: ${r.error}`, [`tmux stand-in: respawn-pane ${t.id} failed: ${r.error}`]) : ok('');
  }

  private async killPane(cmd: TmuxCommand, caller: ShimCaller): Promise<ShimAnswer> {
    const t = await this.resolve(cmd.flags.get('t'), caller, 'pane');
    if ('error' in t) return fail(t.error);
    const victims = cmd.flags.has('a') ? this.surface.panes().filter((p) => p.id !== t.id) : [t];
    for (const v of victims) {
      await this.surface.kill(v);
      this.options.dropPane(v.id);
    }
    return ok('');
  }

  /** The option scope a set-option writes: -g global, -w the window, -p the target pane. */
  private async scopeKey(cmd: TmuxCommand, caller: ShimCaller): Promise<string | { error: string }> {
    if (cmd.flags.has('g') || cmd.flags.has('s')) return 'g';
    if (cmd.flags.has('p')) {
      const t = await this.resolve(cmd.flags.get('t'), caller, 'pane');
      return 'error' in t ? t : `p:${t.id}`;
    }
    const t = await this.resolve(cmd.flags.get('t'), caller, 'window');
    return 'error' in t ? t : `w:${WINDOW_ID}`;
  }
}

function ok(out: string, notes: string[] = []): ShimAnswer {
  return { out, err: '', code: 0, notes };
}

function lineOrFail(r: { line: string; notes: string[] } | { error: string }): ShimAnswer {
  return 'error' in r ? fail(r.error, [`tmux stand-in: ${r.error}`]) : ok(`${r.line}\n`, r.notes);
}

/** What a split-window or respawn-pane runs: its words, -c and -e. */
function runOf(cmd: TmuxCommand): PaneRun | { error: string } {
  const env: Record<string, string> = {};
  const e = cmd.flags.get('e');
  if (e !== undefined) {
    const eq = e.indexOf('=');
    if (eq <= 0) return { error: `invalid environment: ${e}` };
    env[e.slice(0, eq)] = e.slice(eq + 1);
  }
  return { words: cmd.args, cwd: cmd.flags.get('c') ?? null, env };
}
