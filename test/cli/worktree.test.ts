// `teamux diff / merge / discard / worktree list` on a team with real worktrees: the output, the
// exit codes (0, 1 for a bad name, 3 with reason conflict and the paths), and hostile file and
// branch names shown escaped — the CLI run in-process on a real repository.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Git } from '../../src/host/git/repo.js';
import { execGit } from '../../src/host/git/run.js';
import { bookWith, prepareWorktrees } from '../../src/ops/worktree-prepare.js';
import { WorktreeRecord } from '../../src/store/worktrees.js';
import { commitAll, git, makeRepo, writeFiles } from '../helpers/git.js';
import { cli, makeTeam } from '../helpers/team.js';
import { memberDiffOp } from '../../src/ops/worktree-review.js';
import { TeamStore } from '../../src/store/team.js';
import type { Member } from '../../src/protocol/types.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const G = new Git(execGit());
const HOSTILE_BRANCH = 'bob$(touch${IFS}pwned);`id`';

async function team() {
  const t = await makeTeam(['amy', 'bob']);
  cleanup = t.cleanup;
  const root = path.dirname(path.dirname(t.dir));
  makeRepo(root, { 'shared.txt': 'one\n' });
  const made = await prepareWorktrees(G, { repo: root, commonDir: path.join(root, '.git'), team: 'test', base: 'main', copy: [], members: [{ name: 'amy', branch: 'teamux/test/amy' }, { name: 'bob', branch: HOSTILE_BRANCH }] }, () => {});
  if (!made.ok) throw new Error(made.message);
  await new WorktreeRecord(t.dir).update((b) => bookWith(b, 'test', root, 'main', made.worktrees, new Date().toISOString()));
  const [amy, bob] = made.worktrees.map((w) => w.path) as [string, string];
  return { dir: t.dir, root, amy, bob };
}

describe('teamux diff, merge, discard, worktree list', () => {
  it('cli.a-branch-name-git-refuses-is-said-escaped', async () => {
    const t = await makeTeam(['amy']);
    cleanup = t.cleanup;
    const root = path.dirname(path.dirname(t.dir));
    makeRepo(root);
    const made = await prepareWorktrees(G, { repo: root, commonDir: path.join(root, '.git'), team: 'test', base: 'main', copy: [], members: [{ name: 'amy', branch: 'amy \x1b[31mred' }] }, () => {});
    expect(made.ok).toBe(false);
    if (made.ok) return;
    expect(made.message).toContain('"amy \\e[31mred" is not a valid branch name');
    expect(made.message).not.toContain('\x1b');
  });

  it('cli.diff-stat-json-and-list-show-both-members-with-hostile-names-escaped', async () => {
    const t = await team();
    writeFiles(t.amy, { 'shared.txt': 'ONE\n', 'evil\x1b]52;c;aGk=\x07.txt': '\x1b[2Jboom\n' });
    writeFiles(t.bob, { 'shared.txt': 'uno\n' });
    const stat = await cli(['diff', 'amy', '--stat', '--team-dir', t.dir]);
    expect(stat.code, stat.err).toBe(0);
    expect(stat.out).toContain(' shared.txt | +1 −1');
    expect(stat.out).toContain(' evil\\e]52;c;aGk=\\x07.txt (new, untracked) | +1 −0');
    expect(stat.out).toContain('amy on teamux/test/amy: +2 −1 · 2 files, 0 commits ahead of main');
    const patch = await cli(['diff', 'amy', '--team-dir', t.dir]);
    expect(patch.out).toContain('+\\e[2Jboom');
    expect(patch.out).not.toContain('\x1b');
    const json = await cli(['diff', 'bob', '--stat', '--json', '--team-dir', t.dir]);
    const parsed = JSON.parse(json.out) as { ok: boolean; branch: string; files: { path: string }[] };
    expect(parsed).toMatchObject({ ok: true, branch: HOSTILE_BRANCH, files: [{ path: 'shared.txt' }] });
    const list = await cli(['worktree', 'list', '--team-dir', t.dir]);
    expect(list.code, list.err).toBe(0);
    expect(list.out).toContain('amy\tteamux/test/amy\t+2 −1 · 2 files\t');
    expect(list.out).toContain('bob\tbob$(touch${IFS}pwned);`id`\t+1 −1 · 1 file\t');
    expect(list.out).toContain('overlap: shared.txt changed by amy and bob');
    expect(list.out).not.toContain('\x1b');
    expect(existsSync(path.join(t.root, 'pwned'))).toBe(false);
    expect(existsSync(path.join(t.bob, 'pwned'))).toBe(false);
    const unknown = await cli(['diff', 'carl', '--team-dir', t.dir]);
    expect(unknown.code).toBe(3);
    expect(unknown.err).toContain('carl has no worktree (members with one: amy, bob)');
  });

  it('cli.merge-lands-then-a-conflict-exits-3-with-paths-and-discard-keeps-a-backup', async () => {
    const t = await team();
    writeFiles(t.amy, { 'shared.txt': 'ONE\n' });
    commitAll(t.amy, 'amy');
    writeFiles(t.bob, { 'shared.txt': 'uno\n' });
    const ok = await cli(['merge', 'amy', '--team-dir', t.dir]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain("merged amy's teamux/test/amy into main (fast-forward)");
    const head = git(t.root, 'rev-parse', 'HEAD');
    const clash = await cli(['merge', 'bob', '--json', '--team-dir', t.dir]);
    expect(clash.code).toBe(3);
    expect(JSON.parse(clash.out)).toMatchObject({ ok: false, reason: 'conflict', paths: ['shared.txt'] });
    expect(git(t.root, 'status', '--porcelain')).toBe('');
    expect(git(t.root, 'rev-parse', 'HEAD')).toBe(head);
    const gone = await cli(['discard', 'bob', '--team-dir', t.dir]);
    expect(gone.code, gone.err).toBe(0);
    expect(gone.out).toMatch(/the work is kept at refs\/teamux\/backup\/test\/bob\/\d{8}T\d{6}Z/);
    const empty = await cli(['diff', 'bob', '--stat', '--team-dir', t.dir]);
    expect(empty.out).toContain('no changes');
    const bad = await cli(['merge', 'amy', '--message', '  ', '--team-dir', t.dir]);
    expect(bad.code).toBe(1);
  });

  it('cli.report-lists-each-members-work-and-archive-removes-worktrees-keeping-unmerged-branches', async () => {
    const t = await team();
    writeFiles(t.amy, { 'a.txt': 'a\n' });
    commitAll(t.amy, 'amy');
    writeFiles(t.bob, { 'b.txt': 'b\n', 'c.txt': 'c\n' });
    expect((await cli(['merge', 'amy', '--team-dir', t.dir])).code).toBe(0);
    const rep = await cli(['report', '--json', '--team-dir', t.dir]);
    expect(rep.code, rep.err).toBe(0);
    const work = (JSON.parse(rep.out) as { work: { member: string; branch: string; files: number; merged: boolean }[] }).work;
    expect(work.map((w) => [w.member, w.files, w.merged])).toEqual([['amy', 0, true], ['bob', 2, false]]);
    const md = await cli(['report', '--team-dir', t.dir]);
    expect(md.out).toContain('| amy | teamux/test/amy | 0 | 0 | +0 −0 | yes | live |');
    const archived = await cli(['archive', '--team-dir', t.dir]);
    expect(archived.code, archived.err).toBe(0);
    expect(archived.out).toContain('removed the worktree of amy; branch teamux/test/amy deleted (base has it)');
    expect(archived.out).toContain('removed the worktree of bob (its uncommitted work committed first); branch');
    expect(git(t.root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(t.root, 'show', `${HOSTILE_BRANCH}:c.txt`)).toBe('c\n');
    expect(git(t.root, 'branch', '--list', 'teamux/*').trim()).toBe('');
  });

  it('cli.request-changes-sends-one-message-naming-files-and-lines-and-a-teammate-cannot-merge', async () => {
    const t = await team();
    writeFiles(t.amy, { 'a.txt': 'a\n' });
    const r = await cli(['request-changes', 'amy', '--as', 'lead', '--comment', 'a.txt:1: say more', '--comment', 'README.md: mention a.txt', '--comment', 'a.txt:3: and here', '--team-dir', t.dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('sent amy 3 comments in one message');
    const inbox = await cli(['inbox', 'read', '--as', 'amy', '--json', '--team-dir', t.dir]);
    const msgs = (JSON.parse(inbox.out) as { messages: { from: string; text: string }[] }).messages;
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.from).toBe('lead');
    expect(msgs[0]!.text).toBe('Changes requested on your work (branch teamux/test/amy), 3 comments on 2 files:\n\na.txt:\n  - line 1: say more\n  - line 3: and here\n\nREADME.md:\n  - mention a.txt\n\nChange these in your worktree and commit; the reviewer sees the new diff.');
    const bad = await cli(['request-changes', 'amy', '--as', 'lead', '--comment', 'no file here', '--team-dir', t.dir]);
    expect(bad.code).toBe(1);
    const self = await cli(['merge', 'amy', '--team-dir', t.dir], { TEAMUX_MEMBER: 'amy' });
    expect(self.code).toBe(3);
    expect(self.err).toContain('refused (not_owner): teamux merge is the reviewer');
    expect(git(t.root, 'log', '--oneline').trim().split('\n')).toHaveLength(1);
  });

  it('ops.member-diff-gives-a-verifier-the-authors-work-through-the-same-op', async () => {
    const t = await team();
    writeFiles(t.amy, { 'shared.txt': 'ONE\n' });
    commitAll(t.amy, 'amy');
    const opened = await TeamStore.open(t.dir);
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.store;
    const ctx = { store, team: await store.config(), me: (await store.member('bob')).ok ? ((await store.member('bob')) as { value: Member }).value : null };
    const stat = await memberDiffOp.reply({ member: 'amy', stat: true }, ctx);
    expect(stat.isError).toBe(false);
    expect(stat.text).toMatch(/^amy on teamux\/test\/amy \([0-9a-f]{12}\): \+1 −1 · 1 file, 1 commit ahead of main\n  shared\.txt  \+1 -1$/);
    const full = await memberDiffOp.reply({ member: 'amy', stat: false }, ctx);
    expect(full.text).toContain('-one\n+ONE');
    const none = await memberDiffOp.reply({ member: 'lead', stat: true }, ctx);
    expect(none).toMatchObject({ isError: true, text: expect.stringContaining('refused (not_found): lead has no worktree') });
  });
});
