// Files a teammate's shell plants in the team folder (docs/protocol.md §12, attacks 5 and 6): a FIFO
// under any team file's name, a link to /dev/zero, a file made huge. Every read of a team file opens
// it O_NOFOLLOW | O_NONBLOCK, takes regular files only and no more than the cap of its kind, so no
// verb hangs, no reader's memory balloons, and the refusal names the file. The PreToolUse hook fails
// closed: an error is exit 2 (Claude Code runs the tool on any other code), and so is its own deadline.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { perlHookScript } from '../../src/agents/claude/hook-perl.js';
import { stopHookEntry } from '../../src/agents/claude/launch.js';
import { FileTooLargeError, READ_CAPS, readText, readTextSync, UnsafePathError } from '../../src/store/fsx.js';
import { PERL } from '../helpers/hook-shell.js';
import { BIN, makeTeam } from '../helpers/team.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Run a command with `input` on stdin; killed (and reported so) after `limitMs`. */
function run(cmd: string, args: string[], env: Record<string, string>, input = '', limitMs = 15_000): Promise<{ code: number | null; out: string; err: string; ms: number; killed: boolean }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { env: { ...process.env, TEAMUX_TEAM_DIR: '', TEAMUX_MEMBER: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let [out, err, killed] = ['', '', false];
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err, ms: Date.now() - started, killed });
    });
  });
}

const teamux = (argv: string[], env: Record<string, string> = {}, input = '') => run(process.execPath, [BIN, ...argv], env, input);

async function team(opts: Parameters<typeof makeTeam>[1] = {}) {
  const t = await makeTeam(['lead', 'amy'], opts);
  cleanups.push(t.cleanup);
  await t.store.tasks.create({ subject: 'one' });
  return t;
}

/** Replace `file` with a FIFO (nothing ever writes to it). */
function plantFifo(file: string): void {
  rmSync(file, { force: true, recursive: true });
  mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

describe('planted files in the team folder', () => {
  it('planted.a-fifo-under-any-team-file-name-hangs-no-verb-and-is-named', async () => {
    const t = await team();
    const files = ['store.json', 'team.json', 'tasks/1.json', 'task-ready.json', 'task-index.jsonl', 'inboxes/amy.jsonl', 'inboxes/amy.cursor.amy.json'];
    const verbs = [['task', 'list'], ['task', 'claim', '--as', 'amy'], ['inbox', 'read', '--as', 'amy'], ['task', 'show', '1']];
    for (const rel of files) {
      const file = path.join(t.dir, rel);
      const kept = existsSync(file) ? readFileSync(file) : null;
      plantFifo(file);
      const runs = await Promise.all(verbs.map((v) => teamux([...v, '--team-dir', t.dir])));
      for (const [i, r] of runs.entries()) {
        const what = `${verbs[i]!.join(' ')} with a FIFO at ${rel}`;
        expect(r.killed, `${what}: still running after 15 s`).toBe(false);
        expect(r.err, what).not.toMatch(/\n\s+at /);
        // It did not need the file, or went on without it (a task it cannot read is skipped: a
        // refusal, exit 3), or stops saying which file it refused.
        expect([0, 1, 3], what).toContain(r.code);
        if (r.code === 1) expect(r.err, what).toContain(rel.split('/').pop()!);
      }
      // Every verb that reads the file whole refuses it by name, with the hint.
      if (rel === 'store.json' || rel === 'team.json') {
        for (const r of runs) expect(r.err).toMatch(/is not a regular file[^\n]*\n {2}hint: remove it/);
      }
      rmSync(file);
      if (kept) writeFileSync(file, kept);
    }
  }, 120_000);

  it('planted.a-link-to-dev-zero-or-a-huge-file-is-refused-without-being-read', async () => {
    const t = await team();
    const ready = path.join(t.dir, 'task-ready.json');
    rmSync(ready, { force: true });
    symlinkSync('/dev/zero', ready);
    // Before: the claim read /dev/zero into memory (1.6 GiB in 2.5 s) and never ended.
    const claim = await teamux(['task', 'claim', '--as', 'amy', '--team-dir', t.dir, '--json']);
    expect(claim.killed).toBe(false);
    expect(claim.ms).toBeLessThan(10_000);
    expect(() => readTextSync(ready, 'record')).toThrow(UnsafePathError);

    // A task file grown (sparsely) past its cap: refused by size, naming the file, without reading it.
    const task = t.store.paths.task('1');
    truncateSync(task, READ_CAPS.record + 1);
    const heapBefore = process.memoryUsage().arrayBuffers;
    await expect(readText(task, 'record')).rejects.toThrow(FileTooLargeError);
    expect(() => readTextSync(task, 'record')).toThrow(/is 16777217 bytes, more than the 16777216 bytes teamux reads/);
    expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(READ_CAPS.record / 2);
    const show = await teamux(['task', 'show', '1', '--team-dir', t.dir]);
    expect(show.code).not.toBe(0);
    expect(show.err).toContain('tasks/1.json');
    expect(show.err).toMatch(/more than the \d+ bytes teamux reads/);
    // team.json over the roster cap: every verb stops with the file named and a hint.
    truncateSync(t.store.paths.config, READ_CAPS.roster + 1);
    const list = await teamux(['task', 'list', '--team-dir', t.dir]);
    expect(list.code).toBe(1);
    expect(list.err).toMatch(/team\.json is \d+ bytes, more than the \d+ bytes[^\n]*\n {2}hint: /);
  }, 60_000);

  it('planted.pre-tool-use-fails-closed-on-a-fifo-in-node-and-in-perl', async () => {
    const t = await team({ runtime: 'claude', planRequired: true });
    const input = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'touch x' } });
    const argv = ['hook', 'PreToolUse', '--as', 'amy', '--team-dir', t.dir];
    const forms: Array<[string, string, string[]]> = [['node', process.execPath, [BIN, ...argv]], ['cjs', process.execPath, [stopHookEntry(BIN), ...argv]]];
    if (PERL) {
      const script = path.join(t.dir, '..', 'hooks');
      writeFileSync(script, perlHookScript(PERL, process.execPath, BIN), { mode: 0o700 });
      forms.push(['perl', PERL, [script, ...argv]]);
    } else process.stderr.write('NOTICE: no perl: the Perl PreToolUse form is not tested here\n');
    for (const rel of ['store.json', 'team.json', 'requests']) {
      const file = path.join(t.dir, rel);
      plantFifo(file);
      for (const [name, cmd, args] of forms) {
        const r = await run(cmd, args, {}, input);
        const what = `${name} PreToolUse with a FIFO at ${rel}`;
        expect(r.killed, `${what}: still running`).toBe(false);
        // Exit 2 blocks the tool; Claude Code runs it on any other code.
        expect(r.code, `${what}: ${r.err}`).toBe(2);
        expect(r.err, what).toContain(rel);
        expect(r.err, what).toMatch(/refused/);
      }
      rmSync(file);
      if (rel === 'requests') mkdirSync(file, { mode: 0o700 });
    }
  }, 60_000);

  it('planted.pre-tool-use-refuses-on-its-own-deadline-while-a-lock-is-held', async () => {
    const t = await team({ runtime: 'claude' });
    // The member's usage sync lock, held (its mtime kept fresh) by a teammate: the hook waits on it.
    const lock = path.join(t.store.paths.usage, 'amy.claude-sync.json.lock');
    mkdirSync(lock, { recursive: true });
    const keep = setInterval(() => utimesSync(lock, new Date(), new Date()), 500);
    cleanups.push(() => clearInterval(keep));
    const transcript = path.join(t.dir, '..', 'transcript.jsonl');
    writeFileSync(transcript, '');
    const input = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: {}, transcript_path: transcript });
    const r = await run(process.execPath, [BIN, 'hook', 'PreToolUse', '--as', 'amy', '--team-dir', t.dir], { TEAMUX_HOOK_DEADLINE_MS: '1500' }, input);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/could not decide within 2s, so this tool call is refused/);
    expect(r.ms).toBeLessThan(8_000);
  }, 30_000);
});
