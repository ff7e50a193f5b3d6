// Members' worktrees in a real git repository: created once outside the checkout's tree, reused,
// rebuilt after a crash (registered but gone; a folder git does not know), `copy:` files copied, and
// the pane's setup step (real sh): output shown, done once, a failure stops the member from starting.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Git } from '../../src/host/git/repo.js';
import { execGit } from '../../src/host/git/run.js';
import { memberWorktreePath } from '../../src/ops/worktree-place.js';
import { prepareWorktrees, type WorktreePlan } from '../../src/ops/worktree-prepare.js';
import { launchInWorktree, SETUP_FAILED_EXIT } from '../../src/ops/worktree-setup.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';
import { tempDir } from '../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const G = new Git(execGit());

function repo(files?: Record<string, string>): { root: string; plan: WorktreePlan } {
  const t = tempDir('teamux-wt-');
  cleanup = t.cleanup;
  const root = path.join(t.dir, 'repo');
  makeRepo(root, files);
  const plan: WorktreePlan = { repo: root, commonDir: path.join(root, '.git'), team: 'crew', base: 'main', copy: ['.env', 'missing.txt'], members: [{ name: 'amy', branch: 'teamux/crew/amy' }, { name: 'bob', branch: 'teamux/crew/bob' }] };
  return { root, plan };
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, ...env } }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr }));
  });
}

describe('worktree preparation', () => {
  it('worktrees.created-outside-the-tree-with-copied-files-then-reused', async () => {
    const { root, plan } = repo({ '.gitignore': '.teamux/\n.env\n', 'README.md': 'hello\n' });
    writeFileSync(path.join(root, '.env'), 'SECRET=1\n');
    const log: string[] = [];
    const first = await prepareWorktrees(G, plan, (l) => log.push(l));
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const amy = first.worktrees[0]!;
    expect(amy.how).toBe('created');
    expect(amy.path).toBe(memberWorktreePath(G, root, 'crew', 'amy'));
    // Outside the checkout's tree: nothing under root's work tree but what was there.
    expect(path.relative(path.join(root, '.git'), amy.path).startsWith('..')).toBe(false);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(amy.path, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(git(amy.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('teamux/crew/amy');
    writeFileSync(path.join(amy.path, 'work.txt'), 'in progress\n');
    const again = await prepareWorktrees(G, plan, (l) => log.push(l));
    expect(again.ok && again.worktrees.map((w) => w.how)).toEqual(['reused', 'reused']);
    expect(readFileSync(path.join(amy.path, 'work.txt'), 'utf8')).toBe('in progress\n');
  });

  it('worktrees.stale-after-a-crash-are-pruned-or-moved-aside-and-made-again', async () => {
    const { root, plan } = repo();
    const made = await prepareWorktrees(G, plan, () => {});
    if (!made.ok) throw new Error(made.message);
    const [amy, bob] = made.worktrees;
    writeFiles(amy!.path, { 'done.txt': 'committed\n' });
    git(amy!.path, 'add', '-A');
    git(amy!.path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'amy work');
    // amy's folder vanished (git still lists it); bob's registration vanished (the folder is left).
    rmSync(amy!.path, { recursive: true, force: true });
    git(root, 'worktree', 'remove', '--force', bob!.path);
    mkdirSync(bob!.path, { recursive: true });
    writeFileSync(path.join(bob!.path, 'left.txt'), 'x');
    const log: string[] = [];
    const next = await prepareWorktrees(G, plan, (l) => log.push(l));
    expect(next.ok, next.ok ? '' : next.message).toBe(true);
    if (!next.ok) return;
    expect(next.worktrees.map((w) => w.how)).toEqual(['restored', 'restored']);
    // amy's committed work came back with her branch; bob's stray folder was kept aside.
    expect(readFileSync(path.join(amy!.path, 'done.txt'), 'utf8')).toBe('committed\n');
    expect(readdirSync(path.dirname(bob!.path)).some((n) => n.startsWith('bob.stale-'))).toBe(true);
    expect(log.join('\n')).toContain('moved it to');
  });

  it('worktrees.setup-runs-in-the-pane-once-and-a-failure-does-not-start-the-member', async () => {
    const { root, plan } = repo();
    const made = await prepareWorktrees(G, { ...plan, members: [plan.members[0]!] }, () => {});
    if (!made.ok) throw new Error(made.message);
    const wt = made.worktrees[0]!;
    const member = { command: 'sh', args: ['-c', 'echo started in "$PWD"'], cwd: path.join(root, 'sub'), env: { TEAMUX_MEMBER: 'amy' } };
    const failing = launchInWorktree(member, root, wt, ['echo preparing', 'exit 4']);
    mkdirSync(path.join(wt.path, 'sub'));
    const bad = await run(failing.command, failing.args, failing.cwd, failing.env);
    expect(bad.code).toBe(SETUP_FAILED_EXIT);
    expect(bad.out).toContain('teamux: $ echo preparing\npreparing\n');
    expect(bad.out).toContain('setup failed: "exit 4" exited 4; amy was not started');
    expect(bad.out).not.toContain('started in');
    expect(existsSync(wt.setupDone)).toBe(false);
    const good = launchInWorktree(member, root, wt, ['echo preparing > setup.out']);
    const ok = await run(good.command, good.args, good.cwd, good.env);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toContain(`started in ${path.join(wt.path, 'sub')}`);
    expect(readFileSync(path.join(wt.path, 'setup.out'), 'utf8')).toBe('preparing\n');
    // Done once: a restart goes straight to the member.
    const twice = await run(good.command, good.args, good.cwd, good.env);
    expect(twice.out).not.toContain('setting up');
    expect(twice.out).toContain('started in');
  });

  it('worktrees.submodules-and-lfs-pointers-are-said-not-crashed-on', async () => {
    const { root, plan } = repo({ '.gitattributes': '*.bin filter=lfs diff=lfs merge=lfs -text\n', 'big.bin': 'version https://git-lfs.github.com/spec/v1\noid sha256:0000\nsize 4\n' });
    const sub = path.join(path.dirname(root), 'sub');
    makeRepo(sub);
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'vendor/sub');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'sub');
    const made = await prepareWorktrees(G, plan, () => {});
    expect(made.ok, made.ok ? '' : made.message).toBe(true);
    if (!made.ok) return;
    const notes = made.worktrees[0]!.notes.join('\n');
    expect(notes).toContain('submodules (vendor/sub)');
    const hasLfs = (await G.runner.run(['lfs', 'version'], { cwd: root })).code === 0;
    if (!hasLfs) expect(notes).toContain('Git LFS, which is not installed here');
    expect(readFileSync(path.join(made.worktrees[0]!.path, 'big.bin'), 'utf8')).toContain('git-lfs');
  });
});
