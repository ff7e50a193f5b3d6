// End-to-end in a private tmux server with a real repository: two shell teammates start in their own
// worktrees (setup ran in each pane first) and commit there; `teamux diff --stat` shows both; one
// merge lands in base, the other conflicts (exit 3, root clean, same HEAD); discard keeps a backup
// ref; quitting removes the worktrees and keeps the unmerged branch.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, makeRepo } from '../helpers/git.js';
import { BIN, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const drivers: TmuxDriver[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  for (const c of cleanups.splice(0)) await c();
});

function teamux(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, TEAMUX_TEAM_DIR: '' } }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }));
  });
}

const commitAs = (who: string): string => `echo ${who} > ${who}.txt && echo ${who} > shared.txt && git add -A && git commit -qm '${who} work' && echo ${who}-COMMITTED; exec bash --norc --noprofile`;

describe('worktrees (e2e in tmux)', () => {
  it('worktrees.two-members-commit-diff-merge-conflict-discard-and-quit-leaves-no-worktree', async () => {
    const tmp = tempDir('teamux-wt-e2e-');
    cleanups.push(tmp.cleanup);
    const root = tmp.dir;
    makeRepo(root, { 'shared.txt': 'base\n', '.gitignore': '.teamux/\nsetup.out\n' });
    const file = path.join(root, 'team.yaml');
    writeFileSync(file, [
      'name: crew', 'sidebar: { hide_below: 0, width: 60, max_width: 60 }', 'shutdown_timeout: 1',
      'env: { GIT_AUTHOR_NAME: t, GIT_AUTHOR_EMAIL: t@t, GIT_COMMITTER_NAME: t, GIT_COMMITTER_EMAIL: t@t }',
      'worktrees:', '  setup: ["echo setup-ran > setup.out"]',
      'lead: { name: lead, role: shell, command: [bash, --norc, --noprofile] }',
      'teammates:',
      `  - { name: amy, role: shell, command: [bash, -c, "${commitAs('amy')}"] }`,
      `  - { name: bob, role: shell, command: [bash, -c, "${commitAs('bob')}"] }`, '',
    ].join('\n'));
    git(root, 'add', 'team.yaml');
    git(root, 'commit', '-qm', 'layout');
    const d = await TmuxDriver.start(`cd ${root} && ${process.execPath} ${BIN} start ${file}; echo TEAMUX-EXIT=$?; sleep 600`, 200, 50);
    drivers.push(d);
    await d.waitFor((s) => s.includes('amy-COMMITTED') && s.includes('bob-COMMITTED'), 'both members to commit in their worktrees', 60_000);
    // The sidebar counts both members' work and marks the file they both changed, naming both.
    await d.waitFor((s) => (s.match(/\+2 −1 · 2 files/g) ?? []).length === 2 && s.includes('overlap shared.txt: amy + bob'), 'the sidebar to show both members\' work and the overlap', 30_000);
    const list = await teamux(['worktree', 'list', '--json'], root);
    expect(list.code, list.err).toBe(0);
    const rows = (JSON.parse(list.out) as { worktrees: { member: string; path: string; branch: string; files: number }[]; overlaps: unknown }).worktrees;
    expect(rows.map((r) => [r.member, r.branch, r.files])).toEqual([['amy', 'teamux/crew/amy', 2], ['bob', 'teamux/crew/bob', 2]]);
    // The setup ran in each worktree before its member started; the lead stayed in root.
    for (const r of rows) expect(readFileSync(path.join(r.path, 'setup.out'), 'utf8')).toBe('setup-ran\n');
    expect(existsSync(path.join(root, 'setup.out'))).toBe(false);
    expect(git(root, 'status', '--porcelain')).toBe('');
    for (const who of ['amy', 'bob']) {
      const stat = await teamux(['diff', who, '--stat'], root);
      expect(stat.code, stat.err).toBe(0);
      expect(stat.out).toContain(` ${who}.txt | +1 −0`);
    }
    const head0 = git(root, 'rev-parse', 'HEAD');
    const merged = await teamux(['merge', 'amy'], root);
    expect(merged.code, merged.err).toBe(0);
    expect(git(root, 'show', 'HEAD:amy.txt')).toBe('amy\n');
    expect(git(root, 'rev-parse', 'HEAD~1')).toBe(head0);
    const head1 = git(root, 'rev-parse', 'HEAD');
    const clash = await teamux(['merge', 'bob', '--json'], root);
    expect(clash.code).toBe(3);
    expect(JSON.parse(clash.out)).toMatchObject({ reason: 'conflict', paths: ['shared.txt'] });
    expect(git(root, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head1);
    const gone = await teamux(['discard', 'bob'], root);
    expect(gone.code, gone.err).toBe(0);
    expect(git(root, 'for-each-ref', '--format=%(refname)', 'refs/teamux/backup/crew/bob/')).toMatch(/^refs\/teamux\/backup\/crew\/bob\/\d{8}T\d{6}Z\n$/);
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to quit', 60_000);
    await waitFor(() => git(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length === 1, 'only root to be a worktree', 10_000);
    // amy is merged (branch gone); bob's branch is back at base after the discard, so it goes too; nothing unmerged is lost: the backup stays.
    expect(git(root, 'branch', '--list', 'teamux/*')).toBe('');
    expect(git(root, 'for-each-ref', '--format=%(refname)', 'refs/teamux/backup/')).not.toBe('');
  }, 180_000);
});
