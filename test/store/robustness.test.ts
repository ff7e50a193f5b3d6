// Small robustness items: temp files of killed writers are swept at init, a corrupt task file gets
// the same message and exit code from every verb, and a message can come from standard input.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initTeam } from '../../src/store/init.js';
import { MAX_MESSAGE_BYTES } from '../../src/store/inbox.js';
import { BIN, cliProcess, makeTeam, members, REPO, waitFor } from '../helpers/team.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** A child process killed after the test if it is still running. */
function child(args: string[], input?: string | Buffer): { proc: ChildProcess; out: () => string; err: () => string; exit: Promise<number | null> } {
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exit = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  proc.stdin!.on('error', () => undefined);
  if (input !== undefined) proc.stdin!.end(input);
  else proc.stdin!.end();
  cleanups.push(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  return { proc, out: () => out, err: () => err, exit };
}

describe('robustness', () => {
  it('tmp.files-of-killed-writers-are-swept-at-init-and-live-ones-kept', async () => {
    const t = await makeTeam(['amy']);
    cleanups.push(t.cleanup);
    const worker = path.join(REPO, 'test', 'workers', 'stalled-writer.mjs');
    const dead = child([worker, path.join(t.dir, 'tasks', '1.json')]);
    const live = child([worker, path.join(t.dir, 'inboxes', 'amy.cursor.amy.json')]);
    const deadTmp = (await waitFor(() => dead.out().trim(), 'the first writer\'s temp file', 20_000)).trim();
    const liveTmp = (await waitFor(() => live.out().trim(), 'the second writer\'s temp file', 20_000)).trim();
    expect(existsSync(deadTmp) && existsSync(liveTmp)).toBe(true);
    dead.proc.kill('SIGKILL');
    await dead.exit;
    await initTeam(t.dir, { name: 'test', root: path.dirname(path.dirname(t.dir)), layoutFile: null, members: members(['amy']), seedTasks: [] });
    expect(existsSync(deadTmp), 'the killed writer\'s temp file is gone').toBe(false);
    expect(existsSync(liveTmp), 'a live writer\'s temp file is left alone').toBe(true);
    expect(readFileSync(path.join(t.dir, 'teamux.log'), 'utf8')).toContain(`removed 1 temp file(s) left by writers that are gone: tasks/${path.basename(deadTmp)}`);
  });

  it('team-json.written-in-place-by-another-process-is-read-once-it-is-whole', async () => {
    const t = await makeTeam(['amy']);
    cleanups.push(t.cleanup);
    const file = t.store.paths.config;
    const whole = readFileSync(file, 'utf8');
    // Another process writes team.json in place, as an editor or `>` does: empty, then whole 120 ms later.
    const editor = child(['-e', `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(file)}, ''); console.log('empty'); setTimeout(() => fs.writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(whole)}), 120);`]);
    await waitFor(() => editor.out().includes('empty'), 'the file emptied', 20_000, 5);
    const cfg = await t.store.config();
    expect(cfg.members.map((m) => m.name)).toContain('amy');
    expect(await editor.exit).toBe(0);
    // A file that stays empty is still reported, naming the file.
    writeFileSync(file, '');
    const r = await t.store.readConfig();
    expect(r).toMatchObject({ ok: false, error: { message: expect.stringMatching(/team\.json: the file is empty \(half-written\?\)/) } });
  });

  it('corrupt-task.one-message-and-exit-code-for-every-verb', async () => {
    const t = await makeTeam(['amy']);
    cleanups.push(t.cleanup);
    const env = { TEAMUX_TEAM_DIR: t.dir };
    expect((await cliProcess(['task', 'add', '--subject', 'one'], env)).code).toBe(0);
    expect((await cliProcess(['task', 'add', '--subject', 'two'], env)).code).toBe(0);
    writeFileSync(path.join(t.dir, 'tasks', '1.json'), '{"version":1,"id":"1",');
    const verbs = [
      ['task', 'show', '1'],
      ['task', 'claim', '1', '--as', 'amy'],
      ['task', 'update', '1', '--as', 'amy', '--revision', '1', '--subject', 'x'],
      ['task', 'complete', '1', '--as', 'amy'],
      ['task', 'release', '1', '--as', 'amy'],
    ];
    for (const argv of verbs) {
      const r = await cliProcess(argv, env);
      expect(r.code, argv.join(' ')).toBe(3);
      expect(r.err, argv.join(' ')).toMatch(/^teamux: refused \(not_found\): task 1 cannot be read: invalid JSON: /);
      const j = JSON.parse((await cliProcess([...argv, '--json'], env)).out);
      expect(j, argv.join(' ')).toMatchObject({ ok: false, reason: 'not_found', message: expect.stringMatching(/^task 1 cannot be read: /) });
    }
  });

  it('msg.send-reads-a-message-too-long-for-the-command-line-from-stdin', async () => {
    const t = await makeTeam(['amy', 'bob']);
    cleanups.push(t.cleanup);
    const env = { ...process.env, TEAMUX_TEAM_DIR: t.dir };
    // Larger than one argument may be (MAX_ARG_STRLEN, 128 KiB on Linux): as argv it cannot be sent.
    const big = Array.from({ length: 30_000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n');
    expect(Buffer.byteLength(big)).toBeGreaterThan(700_000);
    let asArg = 'ran';
    try {
      spawn(process.execPath, [BIN, 'msg', 'send', '--from', 'amy', '--to', 'bob', big], { env }).kill('SIGKILL');
    } catch (e) {
      asArg = (e as NodeJS.ErrnoException).code ?? 'error';
    }
    expect(asArg).toBe('E2BIG');
    const withEnv = (args: string[], input: string) => {
      const c = spawn(process.execPath, [BIN, ...args], { env, cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      c.stdout.on('data', (b: Buffer) => (out += b.toString()));
      c.stderr.on('data', (b: Buffer) => (err += b.toString()));
      c.stdin.on('error', () => undefined);
      c.stdin.end(input);
      cleanups.push(() => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL'));
      return new Promise<{ code: number | null; out: string; err: string }>((resolve) => c.on('close', (code) => resolve({ code, out, err })));
    };
    const sent = await withEnv(['msg', 'send', '--from', 'amy', '--to', 'bob', '-'], big + '\n');
    expect(sent.code, sent.err).toBe(0);
    const inbox = JSON.parse((await cliProcess(['inbox', 'read', '--as', 'bob', '--json'], { TEAMUX_TEAM_DIR: t.dir })).out);
    expect(inbox.messages.map((m: { text: string }) => m.text)).toEqual([big]);
    const all = await withEnv(['msg', 'broadcast', '--from', 'lead', '-'], 'to everyone\nin two lines\n');
    expect(all.code, all.err).toBe(0);
    expect(all.out).toBe('broadcast to 2 members: amy, bob\n');
    // 3 MB is over the message limit: a clear refusal, exit 1, nothing delivered.
    const huge = 'y'.repeat(3 * 1024 * 1024);
    const over = await withEnv(['msg', 'send', '--from', 'amy', '--to', 'bob', '-'], huge);
    expect(over.code).toBe(1);
    expect(over.err).toMatch(new RegExp(`the message is \\d+ bytes; a message can be at most about ${Math.floor(MAX_MESSAGE_BYTES / 1024)} KiB\\n  hint: `));
    const after = JSON.parse((await cliProcess(['inbox', 'read', '--as', 'bob', '--json'], { TEAMUX_TEAM_DIR: t.dir })).out);
    expect(after.messages.map((m: { type: string }) => m.type)).toEqual(['broadcast']);
  });
});
