/**
 * The layout's `worktrees:` section: defaults and normalization (teammates in, the lead out unless it
 * opts in, `worktree: false` opting out, cwd kept root-relative), and the exact messages for a root
 * outside any repository, a missing base, a template without {member}, a copy path leaving root,
 * and `worktree: true` without the section. The repository is asked through real git.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatErrors, loadLayout } from '../../src/config/load.js';
import { repoProbe } from '../../src/cli/worktrees-run.js';
import { makeRepo } from '../helpers/git.js';
import { lines, tempDir } from './layout-files.js';
import fs from 'node:fs';

const HEAD = ['name: duo', 'lead:', '  name: lead', '  role: Leads', '  command: sh', 'teammates:', '  - name: amy', '    role: Builds', '    command: sh', '  - name: bob', '    role: Tests', '    command: sh', '    worktree: false'];

function layoutIn(dir: string, yaml: string): string {
  const file = path.join(dir, 'team.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

function errorsOf(dir: string, yaml: string): string {
  const file = layoutIn(dir, yaml);
  const r = loadLayout(file, { repo: repoProbe(process.env) });
  if (r.ok) throw new Error('expected errors');
  return formatErrors(r.errors).split(dir).join('DIR');
}

describe('worktrees layout', () => {
  test('worktrees.defaults-give-teammates-a-worktree-and-the-lead-none', () => {
    const dir = tempDir();
    makeRepo(dir);
    const r = loadLayout(layoutIn(dir, lines(...HEAD, 'worktrees:', '  copy: [.env]', '  setup: npm ci')), { repo: repoProbe(process.env) });
    if (!r.ok) throw new Error(formatErrors(r.errors));
    expect(r.layout.worktrees).toEqual({ base: null, branchTemplate: 'teamux/{team}/{member}', copy: ['.env'], setup: ['npm ci'] });
    expect([r.layout.lead, ...r.layout.teammates].map((m) => [m.name, m.worktree])).toEqual([['lead', false], ['amy', true], ['bob', false]]);
  });

  test('worktrees.root-outside-a-repository-is-an-error-at-the-key', () => {
    const dir = tempDir();
    expect(errorsOf(dir, lines(...HEAD, 'worktrees:', '  branch: "t/{member}"'))).toBe(
      `DIR/team.yaml:14:1 worktrees: root "DIR" is not inside a git repository, so members cannot get worktrees\n  hint: run \`git init\` there (and commit something), point root at a repository, or remove worktrees:`,
    );
  });

  test('worktrees.missing-base-is-an-error-at-the-value', () => {
    const dir = tempDir();
    makeRepo(dir);
    expect(errorsOf(dir, lines(...HEAD, 'worktrees:', '  base: nope'))).toBe(
      `DIR/team.yaml:15:9 worktrees.base: base "nope" is not a branch or commit of the repository at DIR\n  hint: name an existing branch (git branch -a lists them), or leave base out to use the branch checked out at root`,
    );
  });

  test('worktrees.bad-template-copy-path-and-worktree-without-the-section', () => {
    const dir = tempDir();
    makeRepo(dir);
    expect(errorsOf(dir, lines(...HEAD, 'worktrees:', '  branch: fixed', '  copy: [../secret]'))).toBe(
      'DIR/team.yaml:15:11 worktrees.branch: the branch template must contain {member}, got "fixed"\n  hint: like "teamux/{team}/{member}"\n' +
        'DIR/team.yaml:16:10 worktrees.copy[0]: expected a path inside root (relative, without ".."), got "../secret"\n  hint: copy names files of root, like .env or config/local.json',
    );
    expect(errorsOf(dir, lines(...HEAD.slice(0, 12), '    worktree: true'))).toBe(
      'DIR/team.yaml:13:15 teammates[1].worktree: worktree: true needs a worktrees: section in the layout\n  hint: add worktrees: {} (defaults: base = the branch at root, branch teamux/{team}/{member})',
    );
  });
});
