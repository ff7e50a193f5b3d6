/**
 * The verbs of members' worktrees: `teamux diff NAME` (a member's work against base), `teamux merge
 * NAME` (into base, in root, all or nothing), `teamux discard NAME` (back to base, a backup ref
 * kept) and `teamux worktree list`. The work is done by the ops (ops/worktree-*.ts) the review view
 * and the pipeline call too; this file parses arguments and prints. Names, paths and diff text are
 * shown with control characters escaped; `--json` is for scripts and the pipeline's verifier.
 */
import { visible } from '../protocol/visible.js';
import { memberDiff, diffSummary, overlaps, type MemberDiff } from '../ops/worktree-diff.js';
import { discardMember, mergeMember, type MergeOutcome } from '../ops/worktree-merge.js';
import { OPERATOR } from '../protocol/trust.js';
import { WorktreeRecord } from '../store/worktrees.js';
import type { TeamStore } from '../store/team.js';
import { actingAs, EXIT_BAD_INPUT, EXIT_OK, EXIT_REFUSED, onePositional, openTeam, parse, report, TEAM_OPTIONS, UsageError, type CliContext } from './context.js';
import { cliGit } from './worktrees-run.js';
import { parseComment, requestChanges, type ReviewComment } from '../ops/worktree-review.js';
import { worktreeEntry } from '../ops/worktree-diff.js';
import type { Verb } from './verb.js';

const HINTS: Record<string, string> = {
  dirty: 'commit or stash the changes in root first (git stash in root), then merge again',
  wrong_branch: 'check out the base branch in root (git switch BASE in root), then merge again',
  conflict: `ask the member to rebase on base and resolve (teamux msg send NAME …), or discard the work`,
  not_found: 'teamux worktree list shows who has a worktree',
};

function hintFor(reason: string): string | undefined {
  return HINTS[reason];
}

/** The member's diff as `git diff --stat` reads: one line per file, then the totals. */
export function statText(d: MemberDiff): string {
  const lines = d.files.map((f) => ` ${visible(f.from ? `${f.from} => ${f.path}` : f.path)}${f.untracked ? ' (new, untracked)' : ''} | ${f.added === null ? 'binary' : `+${f.added} −${f.removed}`}`);
  lines.push(` ${d.member} on ${visible(d.branch)}: ${diffSummary(d)}, ${d.commits} commit${d.commits === 1 ? '' : 's'} ahead of ${visible(d.base)}`);
  return lines.join('\n');
}

async function recordOf(ctx: CliContext, teamDir: string | undefined): Promise<{ store: TeamStore; record: WorktreeRecord }> {
  const store = await openTeam(ctx, teamDir);
  return { store, record: new WorktreeRecord(store.dir) };
}

/**
 * Merging and discarding are the reviewer's: inside a teammate's pane (TEAMUX_MEMBER) they are
 * refused, so a member cannot land or erase work past the review; the lead and the person may.
 */
async function judgeOrRefuse(ctx: CliContext, store: TeamStore, verb: string, json: boolean): Promise<number | null> {
  const me = ctx.env.TEAMUX_MEMBER;
  if (!me) return null;
  const m = await store.member(me);
  if (m.ok && m.value.kind === 'lead') return null;
  return report(ctx, json, { ok: false, reason: 'not_owner', message: `teamux ${verb} is the reviewer's: ${me} is a teammate (TEAMUX_MEMBER) and cannot ${verb} work` }, () => '', 'ask the lead or the person at the screen to review it (teamux msg send)');
}

export const diffVerb: Verb = {
  name: 'diff',
  usage: ['diff NAME [--stat] [--json] [--team-dir DIR]'],
  examples: ['teamux diff alice --stat', 'teamux diff alice --json'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, stat: { type: 'boolean', default: false } }, this.usage[0]!);
    const name = onePositional(positionals, 'member name', this.usage[0]!);
    const { record } = await recordOf(ctx, values['team-dir']);
    const book = await record.read();
    if (!book.ok) throw new UsageError(book.message);
    const d = await memberDiff(cliGit(ctx.env), book.book, name, { patch: !values.stat });
    return report(ctx, values.json, d, (v) => (values.stat ? statText(v) : visible(v.patch ?? '', { lines: true, tabs: true }).replace(/\n$/, '')), d.ok ? undefined : hintFor(d.reason));
  },
};

export const mergeVerb: Verb = {
  name: 'merge',
  usage: ['merge NAME [--squash] [--message M] [--json] [--team-dir DIR]'],
  examples: ['teamux merge alice', 'teamux merge bob --squash --message "Add the parser"'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, squash: { type: 'boolean', default: false }, message: { type: 'string', short: 'm' } }, this.usage[0]!);
    const name = onePositional(positionals, 'member name', this.usage[0]!);
    if (values.message !== undefined && values.message.trim() === '') throw new UsageError('--message is empty', 'give the merge commit a message, or leave --message out');
    const { store, record } = await recordOf(ctx, values['team-dir']);
    const refused = await judgeOrRefuse(ctx, store, 'merge', values.json);
    if (refused !== null) return refused;
    const task = (await store.tasks.list({ status: 'in_progress' })).tasks.find((t) => t.owner === name);
    const r = await mergeMember(cliGit(ctx.env), record, name, { squash: values.squash, ...(values.message !== undefined ? { message: values.message } : {}), by: ctx.env.TEAMUX_MEMBER || OPERATOR, ...(task ? { task: `task ${task.id} (${task.subject})` } : {}) });
    return printMerge(ctx, values.json, r);
  },
};

function printMerge(ctx: CliContext, json: boolean, r: MergeOutcome): number {
  if (!r.ok && 'paths' in r) {
    if (json) ctx.out(JSON.stringify({ ok: false, reason: r.reason, message: r.message, paths: r.paths, hint: HINTS.conflict }));
    else ctx.err(`teamux: refused (conflict): ${visible(r.message)}\n${r.paths.map((p) => `  ${visible(p)}`).join('\n')}\n  hint: ${HINTS.conflict}`);
    return EXIT_REFUSED;
  }
  return report(ctx, json, r, (v) => {
    const first = v.committedFirst ? `committed ${v.member}'s uncommitted work on ${visible(v.branch)} first\n` : '';
    if (v.how === 'nothing to merge') return `${first}${v.member}: nothing to merge (${visible(v.base)} already has ${visible(v.branch)})`;
    return `${first}merged ${v.member}'s ${visible(v.branch)} into ${visible(v.base)} (${v.how}): ${visible(v.base)} is at ${v.commit.slice(0, 12)}`;
  }, r.ok ? undefined : hintFor(r.reason));
}

export const discardVerb: Verb = {
  name: 'discard',
  usage: ['discard NAME [--json] [--team-dir DIR]'],
  examples: ['teamux discard alice', 'git log refs/teamux/backup/TEAM/alice/…   # the discarded work'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, TEAM_OPTIONS, this.usage[0]!);
    const name = onePositional(positionals, 'member name', this.usage[0]!);
    const { store, record } = await recordOf(ctx, values['team-dir']);
    const refused = await judgeOrRefuse(ctx, store, 'discard', values.json);
    if (refused !== null) return refused;
    const r = await discardMember(cliGit(ctx.env), record, name, ctx.env.TEAMUX_MEMBER || OPERATOR);
    return report(ctx, values.json, r, (v) => `discarded ${v.member}'s work on ${visible(v.branch)}: its worktree is back at base (${v.base.slice(0, 12)}); the work is kept at ${visible(v.backup)}`, r.ok ? undefined : hintFor(r.reason));
  },
};

export const worktreeVerb: Verb = {
  name: 'worktree',
  usage: ['worktree list [--json] [--team-dir DIR]'],
  examples: ['teamux worktree list', 'teamux worktree list --json'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, TEAM_OPTIONS, this.usage[0]!);
    if (positionals[0] !== 'list' || positionals.length > 1) throw new UsageError(positionals.length === 0 ? 'missing sub-command' : `unknown sub-command "${visible(positionals.join(' '))}"`, `usage: ${this.usage[0]!}`);
    const { record } = await recordOf(ctx, values['team-dir']);
    const book = await record.read();
    if (!book.ok) throw new UsageError(book.message);
    if (!book.book) {
      if (values.json) ctx.out(JSON.stringify({ ok: true, worktrees: [], overlaps: [] }));
      else ctx.out('this team has no worktrees');
      return EXIT_OK;
    }
    const git = cliGit(ctx.env);
    const diffs = await Promise.all(book.book.members.map((m) => memberDiff(git, book.book, m.member)));
    const rows = book.book.members.map((m, i) => {
      const d = diffs[i]!;
      return { member: m.member, path: m.path, branch: m.branch, base: book.book!.base, removed: m.removedAt !== null, ...(d.ok ? { added: d.value.added, removed_lines: d.value.removed, files: d.value.files.length, commits: d.value.commits } : { problem: d.message }) };
    });
    const over = overlaps(diffs.flatMap((d) => (d.ok ? [d.value] : [])));
    if (values.json) {
      ctx.out(JSON.stringify({ ok: true, worktrees: rows, overlaps: over }));
      return EXIT_OK;
    }
    for (const [i, r] of rows.entries()) {
      const d = diffs[i]!;
      ctx.out(`${r.member}\t${visible(r.branch)}\t${d.ok ? diffSummary(d.value) : `(${visible(d.message)})`}\t${r.removed ? '(worktree removed)' : visible(r.path)}`);
    }
    for (const o of over) ctx.out(`overlap: ${visible(o.path)} changed by ${o.members.join(' and ')}`);
    return diffs.every((d) => d.ok) ? EXIT_OK : EXIT_BAD_INPUT;
  },
};

export const requestChangesVerb: Verb = {
  name: 'request-changes',
  usage: ['request-changes NAME --comment "PATH[:LINE]: TEXT" [--comment …] [--as REVIEWER] [--json] [--team-dir DIR]'],
  examples: ['teamux request-changes amy --comment "src/parse.ts:12: handle the empty string" --comment "README.md: say what changed" --as lead'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, comment: { type: 'string', short: 'c', multiple: true }, as: { type: 'string' } }, this.usage[0]!);
    const name = onePositional(positionals, 'member name', this.usage[0]!);
    const comments: ReviewComment[] = [];
    for (const c of values.comment ?? []) {
      const parsed = parseComment(c);
      if (!parsed) throw new UsageError(`--comment "${visible(c)}" does not name a file`, 'write it as PATH:LINE: TEXT or PATH: TEXT');
      comments.push(parsed);
    }
    if (comments.length === 0) throw new UsageError('missing --comment', `usage: ${this.usage[0]!}`);
    const from = actingAs(ctx, values.as, '--as');
    const { store, record } = await recordOf(ctx, values['team-dir']);
    const book = await record.read();
    if (!book.ok) throw new UsageError(book.message);
    const entry = worktreeEntry(cliGit(ctx.env), book.book, name);
    const r = entry.ok ? await requestChanges(store, from, name, entry.value.branch, comments) : entry;
    return report(ctx, values.json, r, (m) => `sent ${name} ${comments.length} comment${comments.length === 1 ? '' : 's'} in one message (${m.id})`, r.ok ? undefined : hintFor(r.reason));
  },
};
