// The crash test of issue 29: a running team — a teamux agent on the scripted model (auto_claim), a
// Claude Code member on the real binary, a shell — is killed with kill -9 (the screen and every
// member) while the agent is in the middle of a task; `teamux start` resumes the run, the cut-off
// task is released (abandoned) and claimed again, every task completes, a message read before the
// crash is not delivered again, and the Claude Code member's next request carries its conversation.
// The reboot variant runs the team under tmux and kills the tmux server too.
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../../src/store/liveness.js';
import { readClaudeActivity } from '../../../src/store/claude.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { waitFor } from '../../helpers/team.js';
import { killServer } from '../../helpers/tmux.js';
import { bodyText, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const layout = (name: string, backend: string): string => `name: ${name}
backend: ${backend}
sidebar: { width: 40 }
shutdown_timeout: 2
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: bob, role: Builds, agent: { auto_claim: true } }
  - { name: amy, role: Remembers, agent: { cli: claude } }
  - { name: sh, role: Shell, command: [bash, --noprofile, --norc] }
tasks:
  - { id: a, subject: alpha work }
  - { id: b, subject: beta work, blockedBy: [a] }
`;

const scripts = (root: string): Record<string, unknown> => ({
  bob: {
    idle_reply: '(bob waits)',
    steps: [
      { when: { last_user_contains: 'alpha work' }, reply: [{ tool_use: { name: 'task_complete', input: { id: '1', result: 'alpha done' } } }] },
      { reply: [{ text: 'Alpha is done.' }] },
      // Beta: a long command, cut off by the crash.
      { when: { last_user_contains: 'beta work' }, reply: [{ tool_use: { name: 'bash', input: { command: `touch ${path.join(root, 'beta-started')} && sleep 120` } } }] },
      { when: { last_user_contains: 'not run: the member restarted' }, reply: [{ text: 'My command was cut off; I will take beta again.' }] },
      { when: { last_user_contains: 'beta work' }, reply: [{ tool_use: { name: 'task_complete', input: { id: '2', result: 'beta done after the crash' } } }] },
      { reply: [{ text: 'Beta is done.' }] },
    ],
  },
  amy: {
    idle_reply: '(amy waits)',
    steps: [
      { when: { last_user_contains: 'remember the word' }, reply: [{ text: 'I will remember marmalade.' }] },
      { when: { last_user_contains: 'what was the word' }, reply: [{ text: 'The word was marmalade.' }] },
    ],
  },
});

async function crashAndResume(backend: 'pty' | 'tmux'): Promise<void> {
  const name = `crash${backend}`;
  const socket = `teamux-crash-${randomBytes(4).toString('hex')}`;
  if (backend === 'tmux') {
    process.env.TEAMUX_TMUX_SOCKET = socket;
    cleanups.push(async () => {
      delete process.env.TEAMUX_TMUX_SOCKET;
      await killServer(socket);
    });
  }
  const t = await startClaudeTeam(CLAUDE!, name, layout(name, backend), scripts, cleanups, 200, {}, true);
  await t.idle('amy');
  await t.say('lead', 'amy', 'please remember the word marmalade');
  await waitFor(async () => (await t.store.mail.unread('lead', 'lead')).messages.some((m) => m.type === 'result' && m.from === 'amy'), 'amy\'s result', 60_000, 50);
  await waitFor(() => existsSync(path.join(t.root, 'beta-started')), 'bob in the middle of beta', 60_000, 50);
  const run = (await t.store.config()).run;
  const one = await t.store.tasks.get('1');
  expect(one.ok && one.value.status).toBe('completed');

  // The crash: kill -9 of the screen and every member (and, for a reboot, the tmux server).
  const screen = (JSON.parse(readFileSync(path.join(t.teamDir, 'mux.json'), 'utf8')) as { pid: number }).pid;
  const members = (await t.store.config()).members.map((m) => m.pid).filter((p): p is number => p !== null);
  for (const pid of [screen, ...members]) process.kill(pid, 'SIGKILL');
  if (backend === 'tmux') await killServer(socket);
  await t.d.waitFor(/TEAMUX-EXIT=137/, 'the screen killed');
  for (const pid of members) await waitFor(() => !pidAlive(pid, null), `member ${pid} gone`, 15_000);

  // teamux start resumes: same run, beta released as abandoned and done again, amy remembers.
  await t.d.waitFor(/resumed run run-\S+ \(1 task open/, 'the resumed status line', 60_000);
  expect((await t.store.config()).run).toBe(run);
  const done = await waitFor(async () => {
    const b = await t.store.tasks.get('2');
    return b.ok && b.value.status === 'completed' ? b.value : null;
  }, 'beta completed after the resume', 90_000, 100);
  expect(done.result).toBe('beta done after the crash');
  expect(done.attempts.map((a) => [a.owner, a.outcome])).toEqual([['bob', 'abandoned'], ['bob', 'completed']]);
  await waitFor(async () => {
    const a = await readClaudeActivity(t.store.paths, 'amy');
    return a && a.state === 'idle' && t.log().includes('resuming Claude Code session') ? a : null;
  }, 'amy resumed and idle', 60_000, 50);
  const since = Date.now();
  await t.say('lead', 'amy', 'what was the word?');
  const next = await t.server.waitForRequest((r) => r.at >= since && r.member === 'amy' && bodyText(r).includes('what was the word'), 60_000);
  const body = bodyText(next);
  expect(body).toContain('I will remember marmalade.');
  // The message she read before the crash is in her conversation once: not delivered again.
  expect(body.split('please remember the word marmalade').length - 1).toBe(1);
  // Nothing in the lead's inbox twice.
  const ids = (await t.store.mail.unread('lead', 'lead')).messages.map((m) => m.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect((await t.store.roster()).find((m) => m.name === 'sh')?.reportedStatus).not.toBe('exited');
}

describe.skipIf(!CLAUDE)('crash and resume (agents, Claude Code, shells)', () => {
  it('crash.kill-9-of-screen-and-members-then-start-resumes-and-every-task-completes', async () => {
    await crashAndResume('pty');
  }, 300_000);

  it('crash.reboot-the-tmux-server-killed-too-then-start-resumes', async () => {
    await crashAndResume('tmux');
  }, 300_000);
});
