// Panes as real processes in real ptys (node-pty) for the stand-in's bridge: a PaneControl whose
// panes keep their output, so a test can drive a "relay" in a pane and see what it printed. The
// relay plays an agent such as Claude Code: it runs a command line typed into it either itself
// (execFile, as Claude Code runs `tmux`) or through `sh -c` (as its Bash tool does). The caller
// check walks the real /proc ancestry of these processes.
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PtyHost } from '../../../src/host/pty.js';
import type { PaneProcess } from '../../../src/host/types.js';
import type { PaneControl, PaneFacts } from '../../../src/agents/claude/mux-pane-control.js';
import type { MemberLaunch } from '../../../src/app/multiplexer.js';
import { waitFor } from '../../helpers/team.js';

/** One pane: its name, launch, process and everything it printed. */
export interface PtyPane {
  name: string;
  launch: MemberLaunch;
  proc: PaneProcess;
  out: string;
  exited: boolean;
  title: string;
}

/** One command for the relay: run `argv` with `env` added, through `sh -c '"$@"; exit $?'` when `shell`. */
export interface RelayCommand {
  argv: string[];
  env?: Record<string, string>;
  shell?: boolean;
}

const RELAY_SCRIPT = `import { execFile } from 'node:child_process';
import { createInterface } from 'node:readline';
process.stdin.setRawMode?.(true);
process.stdout.write('RELAY-READY\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const c = JSON.parse(line);
  const [file, ...args] = c.shell ? ['/bin/sh', '-c', '"$@"; exit $?', 'sh', ...c.argv] : c.argv;
  execFile(file, args, { env: { ...process.env, ...(c.env ?? {}) }, timeout: 60000 }, (err, out, errText) => {
    const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
    process.stdout.write('OUT=' + JSON.stringify(out + errText) + '\\nRC=' + code + '\\n');
  });
});
`;

/** Write the relay script into `dir`; returns its path. */
export function writeRelay(dir: string): string {
  const file = path.join(dir, 'relay.mjs');
  writeFileSync(file, RELAY_SCRIPT);
  return file;
}

/** The PaneControl of real pty panes. */
export class PtyPanes implements PaneControl<PtyPane> {
  readonly host = new PtyHost();
  readonly panes: PtyPane[] = [];
  readonly said: string[] = [];

  all() { return [...this.panes]; }
  facts(h: PtyPane): PaneFacts | null {
    const i = this.panes.indexOf(h);
    return i < 0 ? null : { name: h.name, rect: { left: i * 40, top: 1, width: 39, height: 20 }, alive: !h.exited, pid: h.proc.pid ?? null, focused: i === 0 };
  }
  area() { return { width: 160, height: 22 }; }
  async open(launch: MemberLaunch): Promise<PtyPane> {
    const proc = await this.host.spawn({ id: launch.name, command: launch.command, args: launch.args, cwd: launch.cwd, env: launch.env, cols: 100, rows: 20 });
    const h: PtyPane = { name: launch.name, launch, proc, out: '', exited: false, title: '' };
    proc.onData((d) => (h.out += typeof d === 'string' ? d : Buffer.from(d).toString()));
    proc.onExit(() => (h.exited = true));
    this.panes.push(h);
    return h;
  }
  async replace(old: PtyPane, launch: MemberLaunch): Promise<PtyPane> {
    await this.close(old);
    return this.open(launch);
  }
  async close(h: PtyPane): Promise<void> {
    h.proc.kill('SIGKILL');
    await waitFor(() => h.exited, `pane ${h.name} to exit`, 20_000);
    this.panes.splice(this.panes.indexOf(h), 1);
  }
  focus() {}
  setTitle(h: PtyPane, title: string) { h.title = title; }
  say(text: string) { this.said.push(text); }

  /** The pane named `name`. */
  pane(name: string): PtyPane {
    const p = this.panes.find((x) => x.name === name);
    if (!p) throw new Error(`no pane ${name} (have ${this.panes.map((x) => x.name).join(', ')})`);
    return p;
  }

  /** Have the relay in pane `name` run `c`; what the command printed (stdout, then stderr) and its exit code. */
  async run(name: string, c: RelayCommand): Promise<{ out: string; code: number }> {
    const p = this.pane(name);
    await waitFor(() => p.out.includes('RELAY-READY'), `the relay in ${name}`, 30_000);
    const from = p.out.length;
    p.proc.write(`${JSON.stringify(c)}\n`);
    const m = await waitFor(() => /OUT=(".*")\r?\nRC=(\d+)\r?\n/.exec(p.out.slice(from)), `${c.argv.join(' ')} in ${name}`, 30_000);
    return { out: JSON.parse(m[1]!) as string, code: Number(m[2]) };
  }

  /** End every pane process. */
  async dispose(): Promise<void> {
    await this.host.dispose({ kill: true });
  }
}
