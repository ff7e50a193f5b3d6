// Issue 26, attack 1: the lead's one-time enrolment token used to travel in its environment, where a
// teammate read it from /proc/PID/environ and enrolled its own key first. Now no process's environment
// holds it: the lead fetches it from the screen's enrolment socket, which hands it only to a process in
// the lead's pane. Real screen in a private tmux server, a real agent lead on the demo model, and two
// spies reading every /proc/*/environ as fast as they can while the lead starts: one started before
// the screen (a job left from an earlier turn) and one in a teammate's pane; both also ask the
// socket for the token, naming the lead's pid as their own.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, REPO, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const SPY = path.join(REPO, 'test', 'fixtures', 'attacks', 'environ-spy.mjs');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Found { reads: number; tokens: string[]; sockets: string[]; socketAnswers: string[] }

describe('the enrolment token is in no environment (e2e in tmux)', () => {
  it('attack1.a-teammate-polling-proc-environ-finds-no-token-and-the-socket-refuses-it-and-the-lead-enrols', async () => {
    const tmp = tempDir('teamux-enrol-');
    cleanups.push(tmp.cleanup);
    const dir = tmp.dir;
    const layout = path.join(dir, 'spy.yaml');
    writeFileSync(layout, [
      'name: spyteam', 'plan_approver: lead', 'sidebar: { hidden: true }',
      'lead: { name: lead, role: approves plans, agent: true }',
      'teammates:', `  - { name: spy, role: reads environs, command: [${process.execPath}, ${SPY}, ${path.join(dir, 'pane-spy.json')}, "8"] }`, '',
    ].join('\n'));
    mkdirSync(path.join(dir, 'scripts'));
    writeFileSync(path.join(dir, 'scripts', 'lead.yaml'), 'idle_reply: "(the lead reads its inbox)"\nsteps: []\n');
    // The spy with a head start: running before the screen exists.
    const early = spawn(process.execPath, [SPY, path.join(dir, 'early-spy.json'), '12'], { stdio: 'ignore' });
    cleanups.push(() => early.kill('SIGKILL'));
    const d = await TmuxDriver.start(`${process.execPath} ${BIN} start ${layout}; echo TEAMUX-EXIT=$?; sleep 600`, 160, 45, { ANTHROPIC_API_KEY: '' });
    cleanups.push(() => d.kill());
    const log = (): string => readFileSync(path.join(dir, '.teamux', 'spyteam', 'teamux.log'), 'utf8');
    await waitFor(() => existsSync(path.join(dir, '.teamux', 'spyteam', 'teamux.log')) && /certified lead's key [0-9a-f]{16} for run run-/.test(log()), "the lead's enrolment", 30_000).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await d.screen()}`);
    });
    const spies = await waitFor(() => {
      const files = ['early-spy.json', 'pane-spy.json'].map((f) => path.join(dir, f));
      return files.every((f) => existsSync(f)) ? files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Found) : null;
    }, 'both spies to finish', 30_000);
    for (const found of spies) {
      // They read the environments (the lead's among them) thousands of times and found no token.
      expect(found.reads).toBeGreaterThan(100);
      expect(found.tokens).toEqual([]);
      // The socket's path is public; asking there, in the lead's name and pid, gets a refusal.
      expect(found.sockets.length).toBeGreaterThan(0);
      for (const a of found.socketAnswers) expect(JSON.parse(a)).toEqual({ refused: expect.stringMatching(/is not in lead's pane/) });
    }
    expect(log()).toMatch(/enrolment socket: refused pid \d+ .*outside every teamux pane, not in lead's/);
    expect(log()).toMatch(/enrolment socket: refused pid \d+ .*in spy's pane, not in lead's/);
    expect(log()).toMatch(/enrolment socket: handed lead's token to pid \d+/);
    expect(log()).not.toMatch(/refused the enrolment|plan approvals disabled/);
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit', 30_000);
  }, 90_000);
});
