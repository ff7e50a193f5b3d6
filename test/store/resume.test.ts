// Resuming a run: the choice between resume and a fresh start (pure), and what resuming does to a
// real team folder whose members died with their screen — the run kept, its pending plan request
// still pending, a permission request of a dead asker withdrawn with its reason, older runs' requests
// expired, unread counted by each member's cursor, a stale claim released as `abandoned`.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { earlierRun, resumedLine, startChoice } from '../../src/protocol/resume.js';
import { readEarlierRun, resumeRun, unreadMessages } from '../../src/store/resume.js';
import { makeTeam, waitFor } from '../helpers/team.js';
import { pidAlive } from '../../src/store/liveness.js';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLAUDE_SESSION_ID } from '../../src/agents/claude/launch.js';
import { recordedSession, updateClaudeActivity } from '../../src/store/claude.js';
import { issueCertificate, leadSigner, newKeyPair } from '../../src/protocol/trust.js';

const member = (name: string, status: 'working' | 'idle' | 'exited') => ({ name, status });

describe('resume: the choice', () => {
  it('resume.unfinished-is-resumed-finished-is-archived-flags-override', () => {
    const open = earlierRun({ run: 'r1', members: [member('lead', 'exited'), member('amy', 'exited')] }, [{ status: 'completed' }, { status: 'pending' }, { status: 'deleted' }]);
    expect(open).toEqual({ kind: 'unfinished', run: 'r1', openTasks: 1, notEnded: [] });
    const crashed = earlierRun({ run: 'r1', members: [member('lead', 'idle'), member('amy', 'exited')] }, [{ status: 'completed' }]);
    expect(crashed).toEqual({ kind: 'unfinished', run: 'r1', openTasks: 0, notEnded: ['lead'] });
    const done = earlierRun({ run: 'r1', members: [member('lead', 'exited')] }, [{ status: 'completed' }, { status: 'deleted' }]);
    expect(done).toEqual({ kind: 'finished', run: 'r1' });
    expect(earlierRun(null, [])).toEqual({ kind: 'none' });
    expect(earlierRun({ run: null, members: [member('lead', 'exited')] }, [])).toEqual({ kind: 'none' });
    // Tasks added from the CLI before any run: resumed, not archived away.
    expect(earlierRun({ run: null, members: [member('lead', 'exited')] }, [{ status: 'pending' }]).kind).toBe('unfinished');

    expect(startChoice(open, 'default')).toEqual({ kind: 'resume', run: 'r1' });
    expect(startChoice(open, 'resume')).toEqual({ kind: 'resume', run: 'r1' });
    expect(startChoice(open, 'fresh')).toEqual({ kind: 'fresh', archive: true });
    expect(startChoice(done, 'default')).toEqual({ kind: 'fresh', archive: true });
    expect(startChoice({ kind: 'none' }, 'default')).toEqual({ kind: 'fresh', archive: false });
    expect(startChoice({ kind: 'none' }, 'fresh')).toEqual({ kind: 'fresh', archive: false });
    expect(startChoice({ kind: 'none' }, 'resume')).toMatchObject({ kind: 'refuse', message: 'there is no earlier run of this team to resume' });
    expect(startChoice(done, 'resume')).toMatchObject({ kind: 'refuse', message: expect.stringMatching(/^the earlier run r1 is finished/), hint: expect.stringMatching(/leave out --resume/) });

    expect(resumedLine('run-x', 3, 2, 0)).toBe('resumed run run-x (3 tasks open, 2 unread)');
    expect(resumedLine('run-x', 1, 0, 1)).toBe('resumed run run-x (1 task open, 0 unread, 1 permission request withdrawn)');
    // A run id written by hand into team.json puts no control sequence on the status line.
    expect(resumedLine('run-\x1b]0;pwned\x07', 0, 0, 0, 2)).not.toMatch(/[\x00-\x1f]/);
    expect(resumedLine('r', 0, 0, 0, 2)).toBe('resumed run r (0 tasks open, 0 unread, 2 approved plans to approve again)');
  });
});

describe('resume: the team folder', () => {
  it('resume.keeps-the-run-and-its-plan-withdraws-a-dead-askers-permission-releases-its-claim', async () => {
    const t = await makeTeam(['amy']);
    try {
      const { store } = t;
      // An earlier run with a request left pending in a run before it.
      await store.startRun();
      const old = await store.openRequest('plan_approval', 'amy', 'lead', 'an old plan');
      if (!old.ok) throw new Error(old.message);
      const { run } = await store.startRun();
      expect((await store.requests.get(old.value.id) as { value: { status: string } }).value.status).toBe('expired');
      // amy runs (a real process), claims a task, asks for a plan and for a permission; mail waits.
      const amy = spawn('sleep', ['600'], { stdio: 'ignore' });
      await store.memberStarted('amy', amy.pid!);
      for (const s of ['one', 'two', 'three']) await store.tasks.create({ subject: s });
      expect((await store.claim('amy', '2')).ok).toBe(true);
      const plan = await store.openRequest('plan_approval', 'amy', 'lead', '1. do it');
      const perm = await store.openPermission('amy', 'human', 'Bash', { command: 'ls' });
      if (!plan.ok || !perm.ok) throw new Error('requests');
      await store.send({ from: 'amy', to: 'lead', type: 'message', text: 'first' });
      await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'second' });
      const read = await store.mail.unread('lead', 'lead');
      await store.send({ from: 'amy', to: 'lead', type: 'message', text: 'third' });
      await store.mail.commit('lead', 'lead', read.next);
      expect(await readEarlierRun(t.dir)).toEqual({ kind: 'unfinished', run, openTasks: 3, notEnded: ['amy'] });

      // While amy runs, her permission request stands.
      expect((await resumeRun(store)).withdrawn).toEqual([]);
      // amy dies with the screen (kill -9): resuming keeps the run and the plan, withdraws the permission.
      amy.kill('SIGKILL');
      await waitFor(() => !pidAlive(amy.pid!, null), 'amy gone');
      const resumed = await resumeRun(store);
      expect(resumed.run).toBe(run);
      expect((await store.config()).run).toBe(run);
      expect(resumed.withdrawn.map((q) => q.id)).toEqual([perm.value.id]);
      const p = await store.requests.get(perm.value.id);
      expect(p.ok && p.value).toMatchObject({ status: 'withdrawn', response: { by: 'amy', text: expect.stringMatching(/^withdrawn by teamux: amy's process that asked is gone/) } });
      const pl = await store.requests.get(plan.value.id);
      expect(pl.ok && pl.value.status).toBe('pending');
      expect(await unreadMessages(store)).toBe(2);
      // Cold recovery: the claim goes back on the board, its attempt ended abandoned, claimable again.
      const stale = await store.releaseStale();
      expect(stale.released.map((x) => x.id)).toEqual(['2']);
      const two = await store.tasks.get('2');
      expect(two.ok && two.value).toMatchObject({ status: 'pending', owner: null });
      expect(two.ok && two.value.attempts.at(-1)).toMatchObject({ owner: 'amy', outcome: 'abandoned' });
      expect((await store.claim('lead', '2')).ok).toBe(true);
    } finally {
      await t.cleanup();
    }
  });

  it('resume.a-plan-approved-under-the-dead-screens-key-is-asked-again', async () => {
    const t = await makeTeam(['amy', 'bob'], { planRequired: true });
    try {
      const { store } = t;
      const { run } = await store.startRun();
      const root = newKeyPair();
      const lead = newKeyPair();
      const signer = leadSigner(lead.privateKey, issueCertificate(root.privateKey, { team: 'test', run, member: 'lead', publicKey: lead.publicKey }));
      const amyPlan = await store.openRequest('plan_approval', 'amy', 'lead', '1. amy does it');
      const bobPlan = await store.openRequest('plan_approval', 'bob', 'lead', '1. bob does it');
      if (!amyPlan.ok || !bobPlan.ok) throw new Error('plans');
      expect((await store.answerRequest(amyPlan.value.id, 'lead', true, 'ok', undefined, signer)).ok).toBe(true);
      expect((await store.answerRequest(bobPlan.value.id, 'lead', false, 'no', undefined, signer)).ok).toBe(true);
      const before = (await store.mail.unread('lead', 'lead')).messages.length;
      const resumed = await resumeRun(store);
      // amy's approval counted only under the dead key: the same plan is her newest, pending, and the
      // lead is asked; bob's rejection stands (he revises and submits again).
      expect(resumed.askedAgain.map((q) => [q.from, q.to, q.body, q.status, q.run])).toEqual([['amy', 'lead', '1. amy does it', 'pending', run]]);
      const toLead = (await store.mail.unread('lead', 'lead')).messages;
      expect(toLead.length).toBe(before + 1);
      expect(toLead.at(-1)).toMatchObject({ from: 'amy', type: 'plan_approval_request', request_id: resumed.askedAgain[0]!.id });
      // Asked once: a second resume finds her current plan pending, not approved.
      expect((await resumeRun(store)).askedAgain).toEqual([]);
    } finally {
      await t.cleanup();
    }
  });

  it('resume.a-recorded-claude-session-is-checked-before-it-is-resumed', async () => {
    const t = await makeTeam(['amy']);
    try {
      const { store } = t;
      const home = path.join(t.dir, 'home');
      const id = '0f8e2b9a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
      const folder = path.join(home, '.claude', 'projects', '-work-x');
      mkdirSync(folder, { recursive: true });
      const file = path.join(folder, `${id}.jsonl`);
      const check = () => recordedSession(store.paths, 'amy', home, CLAUDE_SESSION_ID);
      expect(await check()).toBeNull();
      const record = (sessionId: string, transcriptPath: string) => updateClaudeActivity(store.paths, 'amy', { sessionId, transcriptPath });
      await record('$(rm -rf ~)', file);
      expect(await check()).toMatchObject({ ok: false, why: expect.stringMatching(/is not one Claude Code makes/) });
      await record(id, path.join(t.dir, `${id}.jsonl`));
      expect(await check()).toMatchObject({ ok: false, why: expect.stringMatching(/is not where Claude Code keeps session/) });
      await record(id, file);
      expect(await check()).toMatchObject({ ok: false, why: expect.stringMatching(/is missing$/) });
      writeFileSync(path.join(t.dir, 'elsewhere'), '{"type":"user"}\n');
      symlinkSync(path.join(t.dir, 'elsewhere'), file);
      expect(await check()).toMatchObject({ ok: false, why: expect.stringMatching(/is not a regular file$/) });
      const { rmSync } = await import('node:fs');
      rmSync(file);
      writeFileSync(file, '{"type":"user"}\n[1,2\n{"type":"assistant"}\n');
      expect(await check()).toMatchObject({ ok: false, why: expect.stringMatching(/is damaged at line 2$/) });
      // A last line cut off by kill -9 is not damage.
      writeFileSync(file, '{"type":"user"}\n{"type":"assistant","mess');
      expect(await check()).toEqual({ ok: true, sessionId: id });
    } finally {
      await t.cleanup();
    }
  });
});
