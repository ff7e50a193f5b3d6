// git's -z machine output read as bytes: worktree lists (prunable, detached), numstat with renames
// and binaries, porcelain status with renames, and merge-tree's conflict and message groups.
import { describe, expect, it } from 'vitest';
import { parseMergeTree, parseNumstat, parseStatus, parseWorktreeList } from '../../src/host/git/parse.js';

describe('git output parsers', () => {
  it('git-parse.worktree-list-with-prunable-and-detached-entries', () => {
    const out = 'worktree /r\0HEAD aaa\0branch refs/heads/main\0\0worktree /r/.git/x y\nz\0HEAD bbb\0detached\0prunable gitdir file points to non-existent location\0\0';
    expect(parseWorktreeList(out)).toEqual([
      { path: '/r', head: 'aaa', branch: 'refs/heads/main', prunable: false, locked: false },
      { path: '/r/.git/x y\nz', head: 'bbb', branch: null, prunable: true, locked: false },
    ]);
  });

  it('git-parse.numstat-renames-binaries-and-odd-names', () => {
    expect(parseNumstat('3\t1\ta\tb.txt\0-\t-\timg.png\0' + '0\t0\t\0old name\0new\nname\0')).toEqual([
      { path: 'a\tb.txt', added: 3, removed: 1 },
      { path: 'img.png', added: null, removed: null },
      { path: 'new\nname', from: 'old name', added: 0, removed: 0 },
    ]);
  });

  it('git-parse.status-skips-the-old-path-of-a-rename', () => {
    expect(parseStatus('R  new\0old\0 M f\0?? u\0')).toEqual([
      { index: 'R', worktree: ' ', path: 'new' },
      { index: ' ', worktree: 'M', path: 'f' },
      { index: '?', worktree: '?', path: 'u' },
    ]);
  });

  it('git-parse.merge-tree-clean-conflicted-and-garbage', () => {
    const tree = 'a8386fa675b7197b67074194ea7d08f7c3246aa6';
    expect(parseMergeTree(`${tree}\0`, 0)).toEqual({ clean: true, tree });
    expect(parseMergeTree(`${tree}\0f\0g h\0\x001\0f\0Auto-merging\0Auto-merging f\n\x001\0f\0CONFLICT (contents)\0CONFLICT (content): Merge conflict in f\n\0`, 1)).toEqual({
      clean: false, tree, conflicts: ['f', 'g h'], messages: ['Auto-merging f', 'CONFLICT (content): Merge conflict in f'],
    });
    expect(parseMergeTree('fatal: not a commit', 1)).toBeNull();
  });
});
