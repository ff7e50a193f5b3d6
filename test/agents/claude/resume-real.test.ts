// A Claude Code member (the real binary) comes back with its conversation: the screen and every
// member are killed with kill -9 mid-run, `teamux start` resumes the run, amy is started with
// `claude --resume <the session id her SessionStart hook recorded>` in the same HOME and cwd, and the
// next request her Claude Code sends carries the turns from before the crash. Then C-a F restarts her
// with a fresh conversation (no earlier turns), and a damaged transcript is refused with a clear note:
// she starts fresh, nothing else is lost.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../../src/store/liveness.js';
import { readClaudeActivity } from '../../../src/store/claude.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { waitFor } from '../../helpers/team.js';
import { bodyText, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: ccr
sidebar: { width: 40 }
shutdown_timeout: 2
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: amy, role: Remembers, agent: { cli: claude } }
`;

const scripts = (): Record<string, unknown> => ({
  amy: {
    idle_reply: '(amy waits)',
    steps: [
      { when: { last_user_contains: 'remember the word' }, reply: [{ text: 'I will remember marmalade.' }] },
      { when: { last_user_contains: 'what was the word' }, reply: [{ text: 'The word was marmalade.' }] },
    ],
  },
});

describe.skipIf(!CLAUDE)('Claude Code member resumed after a crash (real binary)', () => {
  it('claude.resume-real-kill-9-then-start-resumes-the-session-c-a-f-starts-fresh', async () => {
    const t = await startClaudeTeam(CLAUDE!, 'ccr', LAYOUT, scripts, cleanups, 160, {}, true);
    await t.idle('amy');
    await t.say('lead', 'amy', 'please remember the word marmalade');
    await t.server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('remember the word marmalade'), 60_000);
    await waitFor(async () => (await t.store.mail.unread('lead', 'lead')).messages.some((m) => m.type === 'result' && m.from === 'amy'), 'amy\'s result to the lead', 60_000, 50);
    const before = await readClaudeActivity(t.store.paths, 'amy');
    const session = before!.sessionId!;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);

    // kill -9 of the screen and every member.
    const screen = (JSON.parse(readFileSync(path.join(t.teamDir, 'mux.json'), 'utf8')) as { pid: number }).pid;
    const members = (await t.store.config()).members.map((m) => m.pid!).filter(Boolean);
    for (const pid of [screen, ...members]) process.kill(pid, 'SIGKILL');
    await t.d.waitFor(/TEAMUX-EXIT=137/, 'the screen killed');
    for (const pid of members) await waitFor(() => !pidAlive(pid, null), `member ${pid} gone`, 15_000);

    // The second start resumes the run; amy is taken up with --resume and her recorded session.
    await t.d.waitFor(/resumed run run-\S+ \(0 tasks open/, 'the resumed status line', 60_000);
    await waitFor(() => /started amy \(pid \d+\): resuming Claude Code session [0-9a-f-]{36}/.test(t.log()), 'amy resumed', 60_000, 100);
    expect(t.log()).toContain(`resuming Claude Code session ${session}`);
    const restarted = (await t.store.config()).members.find((m) => m.name === 'amy')!.pid!;
    expect(readFileSync(`/proc/${restarted}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--resume', session]));
    await waitFor(async () => {
      const a = await readClaudeActivity(t.store.paths, 'amy');
      return a && a.state === 'idle' && a.at > before!.at ? a : null;
    }, 'amy idle again after the resume', 60_000, 50);
    const since = Date.now();
    await t.say('lead', 'amy', 'what was the word?');
    const next = await t.server.waitForRequest((r) => r.at >= since && r.member === 'amy' && bodyText(r).includes('what was the word'), 60_000);
    // Her next request carries the conversation from before the crash.
    expect(bodyText(next)).toContain('please remember the word marmalade');
    expect(bodyText(next)).toContain('I will remember marmalade.');
    const resumedSession = (await readClaudeActivity(t.store.paths, 'amy'))!.sessionId;
    process.stdout.write(`claude --resume ${session}: the resumed process reports session ${resumedSession}\n`);

    // A damaged transcript: a clear note, a fresh conversation, the rest of the team untouched.
    const transcript = (await readClaudeActivity(t.store.paths, 'amy'))!.transcriptPath!;
    await waitFor(async () => (await readClaudeActivity(t.store.paths, 'amy'))?.state === 'idle', 'amy idle', 60_000, 50);
    process.kill(restarted, 'SIGKILL');
    await waitFor(() => !pidAlive(restarted, null), 'amy gone', 15_000);
    writeFileSync(transcript, `${readFileSync(transcript, 'utf8')}not json at all\n{"type":"x"}\n`);
    await t.d.waitFor(/ 2 amy · .*(exited|killed)/, 'amy exited in her title', 20_000);
    await t.d.keys('C-a', '2');
    await t.d.keys('C-a', 'R');
    await waitFor(() => /started amy \(pid \d+\): cannot resume amy's Claude Code conversation: its transcript .* is damaged at line \d+; it starts a fresh one/.test(t.log()), 'the damaged transcript refused', 30_000, 100);
    const fresh = await waitFor(async () => (await t.store.config()).members.find((m) => m.name === 'amy' && m.pid !== restarted && m.pid !== null)?.pid, 'amy started again', 30_000);
    expect(readFileSync(`/proc/${fresh}/cmdline`, 'utf8').split('\0')).not.toContain('--resume');
    expect((await t.store.tasks.list()).problems).toEqual([]);

    // C-a F: a fresh conversation asked for, though a good session is on record.
    await waitFor(async () => {
      const a = await readClaudeActivity(t.store.paths, 'amy');
      return a?.state === 'idle' && a.sessionId !== session ? a : null;
    }, 'amy idle in a new session', 60_000, 50);
    process.kill(fresh, 'SIGKILL');
    await waitFor(() => !pidAlive(fresh, null), 'amy gone again', 15_000);
    await t.d.waitFor(/ 2 amy · .*(exited|killed)/, 'amy exited again', 20_000);
    await t.d.keys('C-a', 'F');
    await waitFor(() => /started amy \(pid \d+\): a fresh conversation, as asked \(C-a F\)/.test(t.log()), 'the fresh start asked for', 30_000, 100);
    const third = await waitFor(async () => (await t.store.config()).members.find((m) => m.name === 'amy' && m.pid !== fresh && m.pid !== null)?.pid, 'amy started a third time', 30_000);
    expect(readFileSync(`/proc/${third}/cmdline`, 'utf8').split('\0')).not.toContain('--resume');
  }, 300_000);
});
