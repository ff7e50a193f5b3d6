// Judging a member's work in a real repository: the diff op (committed + uncommitted + new files,
// hostile names kept as bytes), overlaps, merge all-or-nothing (a conflict leaves root exactly as it
// was), a dirty root refused, squash, discard with a backup ref, and retiring worktrees at the end.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Git } from '../../src/host/git/repo.js';
import { execGit } from '../../src/host/git/run.js';
import { diffSummary, memberDiff, overlaps } from '../../src/ops/worktree-diff.js';
import { discardMember, mergeMember, retireWorktrees } from '../../src/ops/worktree-merge.js';
import { bookWith, prepareWorktrees } from '../../src/ops/worktree-prepare.js';
import { WorktreeRecord } from '../../src/store/worktrees.js';
import { commitAll, git, makeRepo, writeFiles } from '../helpers/git.js';
import { tempDir } from '../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const G = new Git(execGit());
const HOSTILE = 'we ird\n\x1b]0;pwned\x07 ..name.txt';

async function team() {
  const t = await tempDir('teamux-merge-');
  cleanup = t.cleanup;
  const root = path.join(t.dir, 'repo');
  makeRepo(root, { 'shared.txt': 'one\ntwo\nthree\n', 'README.md': 'hi\n' });
  const made = await prepareWorktrees(G, { repo: root, commonDir: path.join(root, '.git'), team: 'crew', base: 'main', copy: [], members: [{ name: 'amy', branch: 'teamux/crew/amy' }, { name: 'bob', branch: 'teamux/crew/bob' }] }, () => {});
  if (!made.ok) throw new Error(made.message);
  const record = new WorktreeRecord(t.dir);
  await record.update((b) => bookWith(b, 'crew', root, 'main', made.worktrees, new Date().toISOString()));
  const [amy, bob] = made.worktrees.map((w) => w.path) as [string, string];
  return { root, record, amy, bob };
}

const book = async (r: WorktreeRecord) => {
  const b = await r.read();
  if (!b.ok) throw new Error(b.message);
  return b.book;
};

describe('member work', () => {
  it('diff.counts-committed-uncommitted-and-new-files-and-finds-overlaps', async () => {
    const { record, amy, bob } = await team();
    writeFiles(amy, { 'shared.txt': 'ONE\ntwo\nthree\n', 'a.txt': 'a\n' });
    commitAll(amy, 'amy 1');
    writeFiles(amy, { [HOSTILE]: 'x\ny\n' });
    writeFiles(bob, { 'shared.txt': 'one\ntwo\nTHREE\n' });
    const a = await memberDiff(G, await book(record), 'amy');
    const b = await memberDiff(G, await book(record), 'bob');
    if (!a.ok || !b.ok) throw new Error('diff failed');
    expect(a.value.files.map((f) => [f.path, f.added, f.removed])).toEqual([['a.txt', 1, 0], ['shared.txt', 1, 1], [HOSTILE, 2, 0]]);
    expect(diffSummary(a.value)).toBe('+4 −1 · 3 files');
    expect(a.value.commits).toBe(1);
    expect(overlaps([a.value, b.value])).toEqual([{ path: 'shared.txt', members: ['amy', 'bob'] }]);
    const withPatch = await memberDiff(G, await book(record), 'amy', { patch: true });
    expect(withPatch.ok && withPatch.value.patch).toContain('+ONE');
    const nobody = await memberDiff(G, await book(record), 'carl');
    expect(nobody.ok === false && nobody.reason).toBe('not_found');
  });

  it('merge.lands-one-and-a-conflict-exits-with-paths-leaving-root-exactly-as-it-was', async () => {
    const { root, record, amy, bob } = await team();
    writeFiles(amy, { 'shared.txt': 'ONE\ntwo\nthree\n' });
    commitAll(amy, 'amy');
    writeFiles(bob, { 'shared.txt': 'uno\ntwo\nthree\n', 'b.txt': 'b\n' });
    const landed = await mergeMember(G, record, 'amy', { by: 'human' });
    expect(landed.ok && landed.value.how).toBe('fast-forward');
    expect(readFileSync(path.join(root, 'shared.txt'), 'utf8')).toBe('ONE\ntwo\nthree\n');
    const head = git(root, 'rev-parse', 'HEAD');
    const index = readFileSync(path.join(root, '.git', 'index'));
    const clash = await mergeMember(G, record, 'bob', { by: 'human' });
    expect(clash.ok).toBe(false);
    if (clash.ok || !('paths' in clash)) throw new Error('expected a conflict');
    expect(clash.reason).toBe('conflict');
    expect(clash.paths).toEqual(['shared.txt']);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(path.join(root, '.git', 'index')).equals(index)).toBe(true);
    expect(readFileSync(path.join(root, 'shared.txt'), 'utf8')).not.toContain('<<<<<<<');
    // bob's uncommitted work was committed on his branch before the attempt.
    expect(git(bob, 'status', '--porcelain')).toBe('');
    expect(git(bob, 'log', '-1', '--format=%s')).toContain("bob's uncommitted work");
  });

  it('merge.refuses-a-dirty-root-and-a-root-on-another-branch-and-squashes', async () => {
    const { root, record, amy, bob } = await team();
    writeFiles(amy, { 'a.txt': 'a\n' });
    writeFiles(bob, { 'b.txt': 'b\n' });
    commitAll(bob, 'bob');
    writeFileSync(path.join(root, 'README.md'), 'edited by the person\n');
    const dirty = await mergeMember(G, record, 'amy', { by: 'human' });
    expect(dirty.ok === false && dirty.reason).toBe('dirty');
    git(root, 'checkout', '-q', '--', 'README.md');
    git(root, 'checkout', '-q', '-b', 'elsewhere');
    const wrong = await mergeMember(G, record, 'amy', { by: 'human' });
    expect(wrong.ok === false && wrong.reason).toBe('wrong_branch');
    git(root, 'checkout', '-q', 'main');
    const merged = await mergeMember(G, record, 'bob', { by: 'human' });
    expect(merged.ok && merged.value.how).toBe('fast-forward');
    const squashed = await mergeMember(G, record, 'amy', { by: 'human', squash: true, message: 'amy: a' });
    expect(squashed.ok && squashed.value.how).toBe('squash');
    expect(git(root, 'log', '-1', '--format=%s%n%P').trim().split('\n')).toEqual(['amy: a', git(root, 'rev-parse', 'HEAD~1').trim()]);
    const after = await memberDiff(G, await book(record), 'amy');
    expect(after.ok && after.value.files).toEqual([]);
    expect((await book(record))!.events.map((e) => [e.member, e.kind, e.squash])).toEqual([['bob', 'merged', false], ['amy', 'merged', true]]);
  });

  it('discard.restores-base-and-keeps-a-backup-ref-then-retire-removes-worktrees-keeping-unmerged-branches', async () => {
    const { root, record, amy, bob } = await team();
    writeFiles(amy, { 'a.txt': 'a\n' });
    commitAll(amy, 'amy');
    writeFiles(amy, { 'loose.txt': 'not committed\n' });
    const d = await discardMember(G, record, 'amy', 'human');
    if (!d.ok) throw new Error(d.message);
    expect(d.value.backup).toMatch(/^refs\/teamux\/backup\/crew\/amy\//);
    expect(git(root, 'show', `${d.value.backup}:loose.txt`)).toBe('not committed\n');
    expect(git(amy, 'status', '--porcelain')).toBe('');
    expect(git(amy, 'rev-parse', 'HEAD')).toBe(git(root, 'rev-parse', 'main'));
    writeFiles(bob, { 'b.txt': 'b\n' });
    const r = await retireWorktrees(G, record);
    if (!r.ok) throw new Error(r.message);
    expect(r.value.map((x) => [x.member, x.removed, x.branchKept, x.committedFirst])).toEqual([['amy', true, false, false], ['bob', true, true, true]]);
    expect(git(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(root, 'branch', '--list', 'teamux/*').trim()).toBe('teamux/crew/bob');
    // The kept branch still shows its work.
    const left = await memberDiff(G, await book(record), 'bob');
    expect(left.ok && left.value.files.map((f) => f.path)).toEqual(['b.txt']);
  });
});
