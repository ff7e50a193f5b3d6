// The staged pipeline demo end to end: `teamux start examples/pipeline/team.yaml` with no API key runs
// four agents on the offline demo model in a real tmux server; with no key press the pipeline goes
// plan → prd → exec (two waves) → verify REVISE → fix → verify APPROVE → report. The test asserts the
// events (dispatch and return with producer, consumer, status, verdict), the handoff documents
// (descriptor and sections, content hash intact), the final report, and the sidebar's pipeline line.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readHandoff } from '../../src/protocol/handoff.js';
import { TeamStore } from '../../src/store/team.js';
import { BIN, cliProcess, REPO, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const drivers: TmuxDriver[] = [];
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  for (const c of cleanups.splice(0)) await c();
});

describe('the pipeline demo (e2e)', () => {
  it('runs plan, prd, two exec waves, REVISE, fix, APPROVE and the report', async () => {
    const tmp = tempDir('teamux-pipeline-');
    cleanups.push(tmp.cleanup);
    const demoDir = path.join(tmp.dir, 'examples', 'pipeline');
    mkdirSync(demoDir, { recursive: true });
    cpSync(path.join(REPO, 'examples', 'pipeline'), demoDir, { recursive: true, filter: (s) => !s.includes('.teamux') && !s.includes('teamux-pipeline') });
    symlinkSync(path.dirname(BIN), path.join(tmp.dir, 'bin'));
    const env: Record<string, string> = { ANTHROPIC_API_KEY: '', PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const d = await TmuxDriver.start(`cd ${tmp.dir} && ./bin/teamux start examples/pipeline/team.yaml; echo TEAMUX-EXIT=$?; sleep 600`, 190, 50, env);
    drivers.push(d);
    await d.waitFor(/DEMO MODEL/, 'the demo label', 30_000);
    const dir = path.join(demoDir, '.teamux', 'pipeline');
    const opened = await waitFor(async () => { const o = await TeamStore.open(dir); return o.ok ? o : null; }, 'the team folder', 30_000);
    const store = opened.store;
    // The sidebar follows the pipeline: wave 2 of exec shows while the second wave runs.
    await d.waitFor(/PIPELINE (exec|verify|fix|report|done)/, 'the pipeline line', 90_000);
    await waitFor(async () => {
      const v = await store.pipeline.load();
      return v.ok && v.value.state.status === 'done';
    }, 'the pipeline to finish', 180_000, 250).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${await d.screen()}`);
    });
    const view = await store.pipeline.load();
    if (!view.ok) throw new Error(view.message);
    const { state } = view.value;
    expect(state).toMatchObject({ status: 'done', stage: 'report', fixRound: 1 });
    expect(state.stories.map((s) => [s.id, s.wave, s.status, s.authors])).toEqual([
      ['s1', 1, 'done', ['alice']], ['s2', 1, 'done', ['bob']], ['s3', 2, 'done', ['alice']], ['s4', 2, 'done', ['bob']],
    ]);
    expect(state.verdicts.map((v) => [v.verdict, v.by, v.round])).toEqual([['REVISE', 'carol', 0], ['APPROVE', 'carol', 1]]);

    // The board: every pipeline task completed by the member of its role, verify tasks carry their verdicts.
    const { tasks } = await store.tasks.snapshot();
    expect(tasks.map((t) => [t.id, t.pipeline?.key, t.owner, t.status])).toEqual([
      ['1', 'plan', 'lead', 'completed'], ['2', 'prd', 'lead', 'completed'],
      ['3', 'exec-s1', 'alice', 'completed'], ['4', 'exec-s2', 'bob', 'completed'], ['5', 'exec-s3', 'alice', 'completed'], ['6', 'exec-s4', 'bob', 'completed'],
      ['7', 'verify-r0', 'carol', 'completed'], ['8', 'fix-r1-s3', 'alice', 'completed'], ['9', 'verify-r1', 'carol', 'completed'], ['10', 'report', 'lead', 'completed'],
    ]);
    expect(tasks[6]!.pipeline).toMatchObject({ verdict: 'REVISE', findings: [{ story: 's3', severity: 'major' }] });
    expect(tasks[8]!.pipeline?.verdict).toBe('APPROVE');
    // Two waves: s3 and s4 were claimed only after s1 and s2 completed.
    const at = (id: string, f: 'claimedAt' | 'completedAt'): number => Date.parse(tasks.find((t) => t.id === id)![f]!);
    expect(Math.min(at('5', 'claimedAt'), at('6', 'claimedAt'))).toBeGreaterThanOrEqual(Math.max(at('3', 'completedAt'), at('4', 'completedAt')));

    // Events: each dispatch and return with producer, consumer, status and verdict.
    const { events } = await store.events.read();
    const returns = events.filter((e) => e.type === 'pipeline_return');
    // Wave-1 (and wave-2) returns may come in either order: compare them by task id.
    expect(returns.map((e) => [e.task, e.stage, e.producer, e.status, e.verdict]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      ['1', 'plan', 'lead', 'completed', null], ['2', 'prd', 'lead', 'completed', null],
      ['3', 'exec', 'alice', 'completed', null], ['4', 'exec', 'bob', 'completed', null], ['5', 'exec', 'alice', 'completed', null], ['6', 'exec', 'bob', 'completed', null],
      ['7', 'verify', 'carol', 'completed', 'REVISE'], ['8', 'fix', 'alice', 'completed', null], ['9', 'verify', 'carol', 'completed', 'APPROVE'], ['10', 'report', 'lead', 'completed', null],
    ]);
    for (const e of returns) expect(e.consumer).toBeTruthy();
    const dispatched = events.filter((e) => e.type === 'pipeline_dispatch' && e.status === 'dispatched');
    expect(dispatched.map((e) => [e.task, e.stage, e.consumer])).toEqual([
      ['1', 'plan', 'lead'], ['2', 'prd', 'lead'], ['3', 'exec', 'alice,bob'], ['4', 'exec', 'alice,bob'], ['5', 'exec', 'alice,bob'], ['6', 'exec', 'alice,bob'],
      ['7', 'verify', 'carol'], ['8', 'fix', 'alice,bob'], ['9', 'verify', 'carol'], ['10', 'report', 'lead'],
    ]);
    for (const e of [...dispatched, ...returns]) expect(e).toHaveProperty('verdict');
    const stages = events.filter((e) => e.type === 'pipeline_stage').map((e) => `${String(e.from)}→${String(e.to)}:${String(e.status)}`);
    expect(stages).toEqual(['plan→prd:passed', 'prd→exec:passed', 'exec→verify:passed', 'verify→fix:returned', 'fix→verify:passed', 'verify→report:passed', 'report→done:done']);

    // Handoff documents: one per transition, descriptor and sections, the body's hash intact.
    const names = readdirSync(path.join(dir, 'handoffs')).sort();
    expect(names).toEqual(['01-plan-prd.md', '02-prd-exec.md', '03-exec-verify.md', '04-verify-fix.md', '05-fix-verify.md', '06-verify-report.md', '07-report-done.md']);
    for (const n of names) {
      const doc = readHandoff(readFileSync(path.join(dir, 'handoffs', n), 'utf8'));
      expect(doc?.intact, n).toBe(true);
      expect(Object.keys(doc!.fields), n).toEqual(['kind', 'path', 'contentHash', 'createdAt', 'producer', 'sizeBytes', 'retention', 'expiresAt', 'status']);
      for (const s of ['## Inputs', '## Decisions', '## Rejected Alternatives', '## Risks', '## Outputs', '## Remaining Work']) expect(doc!.body, n).toContain(s);
    }
    const revise = readHandoff(readFileSync(path.join(dir, 'handoffs', '04-verify-fix.md'), 'utf8'))!;
    expect(revise.fields).toMatchObject({ producer: 'carol', status: 'returned' });
    expect(revise.body).toContain("parse('') must be {}");
    expect(revise.body).toContain('task 8 (fix-r1-s3)');

    // The final report.
    const report = readHandoff(readFileSync(path.join(dir, 'pipeline', 'report.md'), 'utf8'))!;
    expect(report.intact).toBe(true);
    expect(report.fields).toMatchObject({ kind: 'report', status: 'done', producer: 'lead' });
    for (const line of ['stories done: 4', 'stories blocked: 0', 'verdict REVISE by carol in round 0', 'verdict APPROVE by carol in round 1', 'fix rounds: 1', 'parallelism: peak 2']) expect(report.body).toContain(line);
    // `teamux report` (a real process) reads the same run: stories, verdicts and rounds from the task files.
    const cli = await cliProcess(['report', '--json'], { TEAMUX_TEAM_DIR: dir, TEAMUX_MEMBER: '' });
    expect(cli.code, cli.err).toBe(0);
    const teamReport = JSON.parse(cli.out) as { stories: Array<{ story: string; status: string }>; verdicts: Array<{ verdict: string; round: number; by: string }>; rounds: number; tasks: { completed: number } };
    expect(teamReport.stories.map((s) => [s.story, s.status])).toEqual([['s1', 'done'], ['s2', 'done'], ['s3', 'done'], ['s4', 'done']]);
    expect(teamReport.verdicts.map((v) => [v.verdict, v.round, v.by])).toEqual([['REVISE', 0, 'carol'], ['APPROVE', 1, 'carol']]);
    expect(teamReport.rounds).toBe(1);
    expect(teamReport.tasks.completed).toBe(10);
    // The work itself landed (no git involved: the pipeline never commits).
    expect(readFileSync(path.join(tmp.dir, 'examples', 'pipeline', 'teamux-pipeline', 'src', 'parser.mjs'), 'utf8')).toContain("if (text.trim() === '') return {};");
    expect(existsSync(path.join(tmp.dir, 'examples', 'pipeline', '.git'))).toBe(false);

    await d.waitFor(/PIPELINE done/, 'the sidebar pipeline line to say done', 15_000);
    // The budget line counts the agents' model calls (usage/*.jsonl) against the layout's budget.
    const spent = await waitFor(async () => /BUDGET (\d+)% ([0-9.]+k?|[0-9.]+M)\/50\.0M tok 1d/.exec(await d.screen()), 'the budget line', 15_000);
    expect(spent[2]).not.toBe('0');
    expect(await d.screen()).toMatch(/\[APPROVE\]/);
    await waitFor(async () => (await store.requests.list()).requests.filter((r) => r.type === 'shutdown' && r.status === 'approved').length >= 3, 'the teammates to approve shutdown', 60_000, 250);
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit', 30_000);
  }, 360_000);
});
