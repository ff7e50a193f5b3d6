// `teamux report`: parallelism from attempts (pure), and the verb on a real team folder — tasks done
// and blocked, stories and verdicts when tasks carry pipeline fields, tokens and cost per member from
// an agent's transcript and a Claude Code member's activity record, Markdown and --json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildReport, parallelism, workIntervals } from '../../src/protocol/report.js';
import type { Task } from '../../src/protocol/types.js';
import { cli, makeTeam } from '../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const at = (s: number): string => new Date(Date.UTC(2026, 11, 1, 10, 0, s)).toISOString();
function task(id: string, attempts: Array<[string, number, number | null, Task['attempts'][number]['outcome']]>, patch: Partial<Task> = {}): Task {
  return {
    version: 2, id, subject: `t${id}`, description: '', status: 'completed', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: at(0), updatedAt: at(0),
    claimedAt: null, completedAt: null, result: null, holder: null, blockedReason: null, reopenedAt: null,
    attempts: attempts.map(([owner, s, e, outcome]) => ({ owner, startedAt: at(s), endedAt: e === null ? null : at(e), outcome, note: null })), ...patch,
  };
}

describe('parallelism', () => {
  it('report.peak-and-average-workers-from-attempts', () => {
    // amy 0–60 on task 1; bob 30–90 on task 2; amy also 40–50 on task 3 (still one worker); carol 90–120 after a hand-over.
    const tasks = [task('1', [['amy', 0, 60, 'completed']]), task('2', [['bob', 30, 90, 'reassigned'], ['carol', 90, 120, 'completed']]), task('3', [['amy', 40, 50, 'completed']])];
    const p = parallelism(workIntervals(tasks, Date.parse(at(200))));
    expect(p.peak).toBe(2);
    // Worker-seconds: amy 60 + bob 60 + carol 30 = 150 over a 120 s span.
    expect(p.average).toBeCloseTo(1.25, 5);
    expect(p.busyMs).toBe(120_000);
    expect(parallelism([])).toMatchObject({ peak: 0, average: 0 });
  });

  it('report.stories-and-verdicts-from-pipeline-fields', () => {
    const verify = { ...task('4', [['vera', 0, 10, 'completed']]), owner: 'vera', pipeline: { stage: 'verify', story: 's1', round: 1, verdict: 'REVISE', findings: [{ text: 'x' }] } } as Task;
    const exec = { ...task('5', [['amy', 0, 5, 'failed']], { status: 'blocked', blockedReason: '3 attempts failed' }), pipeline: { stage: 'exec', story: 's2', round: 0, verdict: null } } as Task;
    const r = buildReport('t', [verify, exec], [], Date.parse(at(100)));
    expect(r.verdicts).toEqual([{ task: '4', story: 's1', round: 1, verdict: 'REVISE', by: 'vera', findings: 1 }]);
    expect(r.rounds).toBe(1);
    expect(r.stories).toEqual([{ story: 's1', status: 'done', tasks: ['4'] }, { story: 's2', status: 'blocked', tasks: ['5'] }]);
    expect(r.blocked).toEqual([{ id: '5', subject: 't5', reason: '3 attempts failed', attempts: 1 }]);
  });
});

describe('teamux report', () => {
  it('report.markdown-and-json-on-a-real-team', async () => {
    const t = await makeTeam(['amy', 'bob']);
    cleanup = t.cleanup;
    for (const s of ['parser', 'docs', 'flaky']) await t.store.tasks.create({ subject: s });
    expect((await t.store.claim('amy', '1')).ok).toBe(true);
    expect((await t.store.claim('bob', '2')).ok).toBe(true);
    expect((await t.store.complete('amy', '1', 'merged')).ok).toBe(true);
    expect((await t.store.complete('bob', '2', 'written')).ok).toBe(true);
    for (let i = 0; i < 3; i++) {
      await t.store.claim('amy', '3');
      await t.store.tasks.fail('3', 'amy', `try ${i}`);
    }
    // amy is a teamux agent (transcript totals); bob a Claude Code member (its activity record).
    mkdirSync(t.store.paths.transcripts, { recursive: true });
    writeFileSync(t.store.paths.transcript('amy'), JSON.stringify({ version: 1, member: 'amy', model: 'claude-sonnet-5', savedAt: at(0), usage: { input: 100_000, output: 20_000, cacheRead: 0, cacheWrite: 0 }, messages: [] }));
    mkdirSync(t.store.paths.claude, { recursive: true });
    writeFileSync(t.store.paths.claudeActivity('bob'), JSON.stringify({ state: 'idle', at: at(0), costUsd: 0.5, tokens: { input: 3000, output: 400 }, model: 'claude-opus-5' }));

    const j = await cli(['report', '--json', '--team-dir', t.dir]);
    expect(j.code, j.err).toBe(0);
    const r = JSON.parse(j.out);
    expect(r).toMatchObject({ ok: true, team: 'test', tasks: { total: 3, completed: 2, blocked: 1 }, parallelism: { peak: 2 } });
    expect(r.done.map((d: { id: string }) => d.id)).toEqual(['1', '2']);
    expect(r.blocked).toEqual([{ id: '3', subject: 'flaky', reason: '3 attempts failed; the last: try 2', attempts: 3 }]);
    const amy = r.members.find((m: { name: string }) => m.name === 'amy');
    // sonnet: $3/M in, $15/M out → 0.3 + 0.3.
    expect(amy).toMatchObject({ completed: 1, attempts: 4, failed: 3, spend: { input: 100_000, output: 20_000 } });
    expect(amy.spend.usd).toBeCloseTo(0.6, 6);
    expect(r.members.find((m: { name: string }) => m.name === 'bob')).toMatchObject({ completed: 1, spend: { input: 3000, output: 400, usd: 0.5 } });
    expect(r.total.usd).toBeCloseTo(1.1, 6);

    const md = await cli(['report', '--team-dir', t.dir]);
    expect(md.code).toBe(0);
    expect(md.out).toContain('# Team test: report');
    expect(md.out).toMatch(/- Tasks: 3 — 2 done, 0 in progress, 0 pending, 1 blocked/);
    expect(md.out).toMatch(/- Parallelism: peak 2 workers at once, average \d\.\d\d over the span/);
    expect(md.out).toContain('| 3 | flaky | 3 | 3 attempts failed; the last: try 2 |');
    expect(md.out).toMatch(/\| amy \| command \| 1 \| 4 \| 3 \| 0 \| \d+s \| 100k \| 20k \| \$0\.60 \|/);
    expect(md.out).toMatch(/\| bob \| command \| 1 \| 1 \| 0 \| 0 \| \d+s \| 3k \| 400 \| \$0\.50 \|/);
  });

  it('report.bad-input-exits-1', async () => {
    const r = await cli(['report', 'extra', '--team-dir', '/nonexistent']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^teamux: unexpected argument "extra"\n {2}hint: usage: report/);
    const n = await cli(['report', '--team-dir', '/nonexistent/team']);
    expect(n.code).toBe(1);
    expect(n.err).not.toMatch(/\n\s+at /);
  });
});
