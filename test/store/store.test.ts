// The team store on one process: tasks and their DAG, inboxes and cursors, requests, liveness, files.
import { appendFileSync, statSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { issueCertificate, leadSigner, newKeyPair } from '../../src/protocol/trust.js';
import { makeTeam } from '../helpers/team.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

async function team(names = ['amy', 'bob']) {
  const t = await makeTeam(names);
  cleanup = t.cleanup;
  return t.store;
}

describe('tasks', () => {
  it('tasks.dependencies-stay-symmetric', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    await s.tasks.create({ subject: 'b' });
    await s.tasks.create({ subject: 'c', blockedBy: ['1', '2'] });
    await s.tasks.addDependency('2', '1');
    const { index } = await s.tasks.snapshot();
    expect(index.get('1')!.blocks).toEqual(['2', '3']);
    expect(index.get('2')!.blocks).toEqual(['3']);
    expect(index.get('2')!.blockedBy).toEqual(['1']);
    expect(index.get('3')!.blockedBy).toEqual(['1', '2']);
  });

  it('tasks.cycle-rejected-and-nothing-written', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    await s.tasks.create({ subject: 'b', blockedBy: ['1'] });
    const before = readFileSync(s.paths.task('1'), 'utf8');
    expect(await s.tasks.addDependency('1', '2')).toMatchObject({ ok: false, reason: 'cycle' });
    expect(readFileSync(s.paths.task('1'), 'utf8')).toBe(before);
  });

  it('tasks.ids-never-reused-after-delete', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    await s.tasks.create({ subject: 'b' });
    rmSync(s.paths.task('2'));
    const r = await s.tasks.create({ subject: 'c' });
    expect(r.ok && r.value.id).toBe('3');
  });

  it('tasks.claim-next-follows-readiness-and-completion-unblocks', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    await s.tasks.create({ subject: 'b', blockedBy: ['1'] });
    expect(await s.claim('amy')).toMatchObject({ ok: true, value: { id: '1', owner: 'amy' } });
    expect(await s.claim('bob')).toMatchObject({ ok: false, reason: 'no_ready_task' });
    expect(await s.claim('bob', '2')).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await s.tasks.complete('1', 'bob', null)).toMatchObject({ ok: false, reason: 'not_owner' });
    expect(await s.tasks.complete('1', 'amy', 'ok')).toMatchObject({ ok: true, value: { nowReady: ['2'] } });
    expect(await s.claim('bob')).toMatchObject({ ok: true, value: { id: '2' } });
    expect(await s.claim('amy', '1')).toMatchObject({ ok: false, reason: 'already_completed' });
    expect(await s.claim('amy', '2')).toMatchObject({ ok: false, reason: 'already_claimed' });
    expect(await s.claim('amy', '7')).toMatchObject({ ok: false, reason: 'not_found' });
  });

  it('tasks.stale-update-never-overwrites', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    expect((await s.tasks.update('1', 'amy', 1, { description: 'first' })).ok).toBe(true);
    expect(await s.tasks.update('1', 'bob', 1, { description: 'second' })).toMatchObject({ ok: false, reason: 'conflict' });
    const t = await s.tasks.get('1');
    expect(t.ok && t.value).toMatchObject({ description: 'first', revision: 2 });
  });

  it('tasks.bad-file-reported-and-skipped', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    await s.tasks.create({ subject: 'b' });
    writeFileSync(s.paths.task('2'), '{"id": "2", "subj');
    writeFileSync(s.paths.task('5'), JSON.stringify({ version: 1, id: '5', subject: 'x', status: 'weird' }));
    const board = await s.tasks.snapshot();
    expect(board.tasks.map((t) => t.id)).toEqual(['1']);
    expect(board.problems.map((p) => p.path.replace(/.*\//, ''))).toEqual(expect.arrayContaining(['2.json', '5.json']));
    expect(board.problems.find((p) => p.path.endsWith('2.json'))!.message).toMatch(/invalid JSON/);
    expect(board.problems.find((p) => p.path.endsWith('5.json'))!.message).toMatch(/^status: /);
  });

  it('tasks.files-are-0600-and-folders-0700', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    expect(statSync(s.paths.task('1')).mode & 0o777).toBe(0o600);
    expect(statSync(s.paths.tasks).mode & 0o777).toBe(0o700);
    expect(statSync(s.paths.config).mode & 0o777).toBe(0o600);
    expect(statSync(s.dir).mode & 0o777).toBe(0o700);
  });

  it('tasks.events-recorded', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    await s.claim('amy', '1');
    await s.tasks.complete('1', 'amy', null);
    const { events } = await s.events.read();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['task_created', 'task_claimed', 'task_completed']));
  });
});

describe('inboxes', () => {
  it('inbox.unknown-member-is-an-error', async () => {
    const s = await team();
    expect(await s.send({ from: 'amy', to: 'zed', type: 'message', text: 'hi' })).toMatchObject({ ok: false, reason: 'unknown_member' });
  });

  it('inbox.cursor-advances-only-on-commit', async () => {
    const s = await team();
    await s.send({ from: 'amy', to: 'bob', type: 'message', text: 'one' });
    const first = await s.mail.unread('bob');
    expect(first.messages.map((m) => m.text)).toEqual(['one']);
    // A crash before commit: the same message comes back.
    expect((await s.mail.unread('bob')).messages.map((m) => m.text)).toEqual(['one']);
    await s.mail.commit('bob', 'bob', first.next);
    expect((await s.mail.unread('bob')).messages).toEqual([]);
    await s.send({ from: 'amy', to: 'bob', type: 'result', text: 'two' });
    expect((await s.mail.read('bob')).messages.map((m) => m.text)).toEqual(['two']);
  });

  it('inbox.redelivery-deduplicated-by-id-and-partial-line-waits', async () => {
    const s = await team();
    const sent = await s.send({ from: 'amy', to: 'bob', type: 'message', text: 'x' });
    if (!sent.ok) throw new Error('send failed');
    appendFileSync(s.paths.inbox('bob'), JSON.stringify(sent.value) + '\n');
    appendFileSync(s.paths.inbox('bob'), '{"id":"half');
    const r = await s.mail.read('bob');
    expect(r.messages).toHaveLength(1);
    expect(r.problems).toEqual([]);
    appendFileSync(s.paths.inbox('bob'), 'way" , garbage}\n');
    const r2 = await s.mail.read('bob');
    expect(r2.messages).toEqual([]);
    expect(r2.problems).toHaveLength(1);
  });

  it('inbox.broadcast-reaches-everyone-but-sender', async () => {
    const s = await team(['amy', 'bob', 'cat']);
    await s.broadcast('amy', 'hello all');
    for (const who of ['lead', 'bob', 'cat']) expect((await s.mail.read(who)).messages.map((m) => [m.type, m.text])).toEqual([['broadcast', 'hello all']]);
    expect((await s.mail.read('amy')).messages).toEqual([]);
  });

  it('inbox.result-and-idle-are-separate-and-idle-sets-status', async () => {
    const s = await team();
    await s.send({ from: 'amy', to: 'lead', type: 'result', text: 'done 1' });
    await s.send({ from: 'amy', to: 'lead', type: 'idle_notification', text: 'idle' });
    expect((await s.mail.read('lead')).messages.map((m) => m.type)).toEqual(['result', 'idle_notification']);
    expect((await s.member('amy')).ok && ((await s.member('amy')) as { value: { status: string } }).value.status).toBe('idle');
  });

  it('inbox.wait-wakes-on-append', async () => {
    const s = await team();
    const waiting = s.mail.waitForUnread('bob', 'bob', 5_000);
    setTimeout(() => void s.send({ from: 'amy', to: 'bob', type: 'message', text: 'wake' }), 50);
    const started = Date.now();
    expect(await waiting).toBe(true);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await s.mail.waitForUnread('amy', 'amy', 200)).toBe(false);
  });
});

describe('requests', () => {
  it('request.plan-approval-round-trip', async () => {
    const s = await team();
    const r = await s.openRequest('plan_approval', 'amy', 'lead', 'my plan');
    if (!r.ok) throw new Error(r.message);
    const leadMsgs = (await s.mail.read('lead')).messages;
    expect(leadMsgs).toMatchObject([{ type: 'plan_approval_request', request_id: r.value.id, text: 'my plan' }]);
    expect(await s.answerRequest(r.value.id, 'bob', true, '')).toMatchObject({ ok: false, reason: 'wrong_responder' });
    expect(await s.answerRequest(r.value.id, 'lead', true, 'ship it', 'shutdown_response')).toMatchObject({ ok: false, reason: 'type_mismatch' });
    // A plan decision must be signed: the lead's signer is its key with a certificate from the screen's root.
    expect(await s.answerRequest(r.value.id, 'lead', false, 'add tests')).toMatchObject({ ok: false, reason: 'unsigned' });
    const lead = newKeyPair();
    const signer = leadSigner(lead.privateKey, issueCertificate(newKeyPair().privateKey, { team: 'test', run: '', member: 'lead', publicKey: lead.publicKey }));
    expect(await s.answerRequest(r.value.id, 'lead', false, 'add tests', undefined, signer)).toMatchObject({ ok: true, value: { status: 'rejected', response: { signed: { claim: { decision: 'reject' } } } } });
    expect(await s.answerRequest(r.value.id, 'lead', true, 'ok', undefined, signer)).toMatchObject({ ok: false, reason: 'not_pending' });
    const amy = (await s.mail.read('amy')).messages;
    expect(amy).toMatchObject([{ type: 'plan_approval_response', request_id: r.value.id, payload: { approve: false, feedback: 'add tests' } }]);
  });
});

describe('liveness', () => {
  it('liveness.dead-pid-reported-exited-and-tasks-released', async () => {
    const s = await team();
    await s.tasks.create({ subject: 'a' });
    await s.memberStarted('amy', process.pid);
    await s.claim('amy', '1');
    // A pid that cannot exist: beyond pid_max.
    await s.updateMember('bob', { status: 'working', pid: 4_194_400, pidStart: null });
    await s.tasks.create({ subject: 'b' });
    await s.claim('bob', '2');
    const roster = await s.roster();
    expect(roster.find((m) => m.name === 'amy')!.reportedStatus).toBe('working');
    expect(roster.find((m) => m.name === 'bob')!.reportedStatus).toBe('exited');
    const { released } = await s.releaseStale();
    expect(released.map((t) => t.id)).toEqual(['2']);
  });
});

describe('hand edits and torn writes', () => {
  it('inbox.torn-line-keeps-the-next-senders-message', async () => {
    const s = await team();
    appendFileSync(s.paths.inbox('bob'), '{"id":"msg-torn","from":"amy","to":"bob","type":"mess');
    const sent = await s.send({ from: 'lead', to: 'bob', type: 'message', text: 'survives' });
    expect(sent.ok).toBe(true);
    const r = await s.mail.read('bob');
    expect(r.messages.map((m) => m.text)).toEqual(['survives']);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.message).toMatch(/torn/);
    expect(r.problems[0]!.path).toMatch(/\(byte 0\)$/);
  });

  it('tasks.snapshot-of-2000-tasks-reads-in-batches', async () => {
    const s = await team();
    const now = new Date().toISOString();
    for (let i = 1; i <= 2000; i++) {
      writeFileSync(s.paths.task(String(i)), JSON.stringify({ version: 1, id: String(i), subject: `t${i}`, description: '', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: now, updatedAt: now }));
    }
    const board = await s.tasks.snapshot();
    expect(board.tasks).toHaveLength(2000);
    // Files added by hand past the high-water mark are never overwritten by a new task.
    const r = await s.tasks.create({ subject: 'new' });
    expect(r.ok && r.value.id).toBe('2001');
  });
});
