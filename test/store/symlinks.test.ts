// A teammate's bash can plant symbolic links in the team folder to make teamux write (or read)
// outside it. Every such link is refused with a message naming the path and a hint, exit 1 on the
// CLI, and nothing is written outside. A folder others can write to, or owned by someone else, is
// warned about once.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { atomicWrite, appendLine, readText, UnsafePathError } from '../../src/store/fsx.js';
import { TeamStore } from '../../src/store/team.js';
import { cliProcess, makeTeam, tempDir } from '../helpers/team.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function team() {
  const t = await makeTeam(['amy', 'bob']);
  const outside = tempDir('teamux-outside-');
  cleanups.push(t.cleanup, outside.cleanup);
  const target = path.join(outside.dir, 'victim.txt');
  writeFileSync(target, 'original\n');
  return { dir: t.dir, store: t.store, env: { TEAMUX_TEAM_DIR: t.dir }, outside: outside.dir, target };
}

/** The CLI refused with exit 1, naming the path and giving a hint, without a stack trace. */
function expectRefused(r: { code: number; err: string }, file: string): void {
  expect(r.code, r.err).toBe(1);
  expect(r.err).toContain(file);
  expect(r.err).toMatch(/symbolic link|not a folder/);
  expect(r.err).toMatch(/\n {2}hint: remove it/);
  expect(r.err).not.toMatch(/\n\s+at /);
}

describe('store symlinks', () => {
  it('symlink.inbox-file-link-is-refused-and-the-target-untouched', async () => {
    const { dir, env, target } = await team();
    const inbox = path.join(dir, 'inboxes', 'bob.jsonl');
    symlinkSync(target, inbox);
    const r = await cliProcess(['msg', 'send', '--from', 'amy', '--to', 'bob', 'hello'], env);
    expectRefused(r, inbox);
    expect(readFileSync(target, 'utf8')).toBe('original\n');
    // Reading through the link is refused too.
    expectRefused(await cliProcess(['inbox', 'read', '--as', 'bob'], env), inbox);
  });

  it('symlink.events-log-and-team-json-links-refuse-the-whole-folder', async () => {
    for (const name of ['events.jsonl', 'teamux.log', 'team.json']) {
      const { dir, env, target } = await team();
      const file = path.join(dir, name);
      if (existsSync(file)) renameSync(file, `${file}.real`);
      symlinkSync(target, file);
      const r = await cliProcess(['msg', 'send', '--from', 'amy', '--to', 'bob', 'hello'], env);
      expectRefused(r, file);
      expect(readFileSync(target, 'utf8'), name).toBe('original\n');
      // Nothing was delivered either: the refusal came before any write.
      expect(existsSync(path.join(dir, 'inboxes', 'bob.jsonl')), name).toBe(false);
    }
  });

  it('symlink.inboxes-folder-link-puts-nothing-outside', async () => {
    const { dir, env, outside } = await team();
    const inboxes = path.join(dir, 'inboxes');
    renameSync(inboxes, `${inboxes}.real`);
    symlinkSync(outside, inboxes);
    const r = await cliProcess(['msg', 'send', '--from', 'amy', '--to', 'bob', 'hello'], env);
    expectRefused(r, inboxes);
    expect(readdirSync(outside)).toEqual(['victim.txt']);
  });

  it('symlink.folder-swapped-after-open-is-refused-on-write', async () => {
    // The store was opened while the folder was sound; the link appears later (a running agent).
    const { dir, store, outside } = await team();
    const inboxes = path.join(dir, 'inboxes');
    renameSync(inboxes, `${inboxes}.real`);
    symlinkSync(outside, inboxes);
    await expect(store.send({ from: 'amy', to: 'bob', type: 'message', text: 'x' })).rejects.toBeInstanceOf(UnsafePathError);
    await expect(store.tasks.create({ subject: 'x' })).resolves.toMatchObject({ ok: true });
    const tasks = path.join(dir, 'tasks');
    renameSync(tasks, `${tasks}.real`);
    symlinkSync(outside, tasks);
    await expect(store.tasks.create({ subject: 'y' })).rejects.toBeInstanceOf(UnsafePathError);
    // Not even a lock folder is made through the link.
    await expect(store.claim('amy', '1')).rejects.toBeInstanceOf(UnsafePathError);
    expect(readdirSync(outside)).toEqual(['victim.txt']);
  });

  it('symlink.task-file-link-is-a-problem-not-a-read', async () => {
    const { dir, env, target } = await team();
    expect((await cliProcess(['task', 'add', '--subject', 'one'], env)).code).toBe(0);
    const link = path.join(dir, 'tasks', '2.json');
    symlinkSync(target, link);
    const list = await cliProcess(['task', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.err).toContain(`skipped ${link}: ${link} is a symbolic link`);
    const show = await cliProcess(['task', 'show', '2'], env);
    expect(show.code).toBe(3);
    expect(show.err).toMatch(/task 2 cannot be read: .* is a symbolic link/);
  });

  it('symlink.atomic-write-refuses-to-rename-onto-a-link-and-appends-refuse-fifos', async () => {
    const { dir, target } = await team();
    const file = path.join(dir, 'tasks', '7.json');
    symlinkSync(target, file);
    await expect(atomicWrite(file, '{}')).rejects.toThrow(/7\.json is a symbolic link/);
    await expect(appendLine(file, '{}')).rejects.toThrow(/is a symbolic link/);
    await expect(readText(file, 'record')).rejects.toThrow(/is a symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('original\n');
    // A FIFO planted as a file neither hangs a reader nor takes an append.
    const fifo = path.join(dir, 'tasks', '8.json');
    execFileSync('mkfifo', [fifo]);
    await expect(readText(fifo, 'record')).rejects.toThrow(/8\.json is not a regular file/);
    await expect(appendLine(fifo, '{}')).rejects.toThrow(/8\.json is not a regular file/);
    // No temp file is left behind by the refused write.
    expect(readdirSync(path.join(dir, 'tasks')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('symlink.team-folder-writable-by-others-is-warned-once', async () => {
    const { dir, env } = await team();
    chmodSync(dir, 0o777);
    const r = await cliProcess(['task', 'list'], env);
    expect(r.code).toBe(0);
    const warnings = r.err.split('\n').filter((l) => l.includes('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${dir} is writable by its group and other users (mode 777)`);
    expect(r.err).toContain(`chmod 700`);
    expect(readFileSync(path.join(dir, 'teamux.log'), 'utf8')).toMatch(/warn .* is writable by its group and other users/);
    // Open it twice in one process: the warning is given the first time only.
    chmodSync(dir, 0o770);
    const first = await TeamStore.open(dir);
    const second = await TeamStore.open(dir);
    expect(first.ok && first.warnings.length).toBe(1);
    expect(second.ok && second.warnings).toEqual([]);
    chmodSync(dir, 0o700);
    expect((await cliProcess(['task', 'list'], env)).err).not.toContain('warning');
  });

  it('symlink.init-refuses-a-linked-subfolder', async () => {
    const { dir, outside } = await team();
    const spawn = path.join(dir, 'spawn');
    renameSync(spawn, `${spawn}.real`);
    mkdirSync(path.join(outside, 'elsewhere'));
    symlinkSync(path.join(outside, 'elsewhere'), spawn);
    await expect(TeamStore.forCreate(dir)).rejects.toThrow(/spawn is a symbolic link/);
    const opened = await TeamStore.open(dir);
    expect(opened.ok).toBe(false);
  });
});
