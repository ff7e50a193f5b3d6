/**
 * The offline demo end to end, as real processes: `teamux agent --as lead|alice|bob` against the
 * scripted server playing examples/demo/scripts, coordinating only through the team folder. The test
 * plays the human: it approves Alice's plan once Bob's task is done. Asserted: all four tasks of the
 * DAG completed by the right owners, results and idle notifications in the lead's inbox, the plan
 * gate held Alice back until approval, and every process exits 0 after the shutdown handshake.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScriptDir } from '../../src/demo/script.js';
import { REPO } from '../helpers/team.js';
import { OPERATOR } from '../../src/protocol/trust.js';
import { agentTeam, inbox, scripted, trustRoot, waitFor } from './helpers.js';
import { exited, startMember, teamuxBin, type MemberProcess } from './process.js';

describe('e2e', () => {
  it('e2e.lead-and-two-teammates-complete-a-4-task-dag-as-processes', async () => {
    const bin = await teamuxBin();
    const { store, dir, root } = await agentTeam(['alice', 'bob'], { alice: { planRequired: true, planApprover: OPERATOR } });
    const { screen, env: trustEnv } = await trustRoot(dir);
    const loaded = await loadScriptDir(path.join(REPO, 'examples/demo/scripts'));
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    const server = await scripted(Object.fromEntries(loaded.value));
    const env: NodeJS.ProcessEnv = { ...trustEnv, TEAMUX_TEAM_DIR: dir, TEAMUX_DEMO_URL: server.url };
    delete env.ANTHROPIC_API_KEY;
    delete env.TEAMUX_MEMBER;
    const members = ['lead', 'alice', 'bob'].map((n) => startMember(bin, ['agent', '--as', n], env, root, n));
    const [lead, alice, bob] = members as [MemberProcess, MemberProcess, MemberProcess];
    const panes = (): string => members.map((m) => `--- ${m.name} ---\n${m.out.slice(-2500)}`).join('\n');

    try {
      // Bob finishes the harness while Alice's plan waits for the human.
      await waitFor(async () => {
        const t = await store.tasks.get('2');
        return t.ok && t.value.status === 'completed';
      }, 'task 2 completed by bob', 20_000);
      const plan = await waitFor(async () => (await store.requests.list()).requests.find((r) => r.type === 'plan_approval' && r.status === 'pending'), 'alice\'s plan request', 20_000);
      await waitFor(async () => (await inbox(store, 'lead')).some((m) => m.from === 'alice' && m.type === 'idle_notification'), 'alice idle, waiting for approval', 20_000);
      expect(existsSync(path.join(root, 'teamux-demo/docs/parser-api.md'))).toBe(false);
      expect(alice.out).toContain('blocked: plan status is pending');
      // The human approves: the screen's store API signs with its root key.
      expect((await screen.answerRequest(plan.id, OPERATOR, true, 'looks good')).ok).toBe(true);

      expect(await exited(alice, 30_000)).toBe(0);
      expect(await exited(bob, 30_000)).toBe(0);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${panes()}`);
    }

    const board = await store.tasks.snapshot();
    expect(board.tasks.map((t) => [t.id, t.status, t.owner, t.blockedBy])).toEqual([
      ['1', 'completed', 'alice', []],
      ['2', 'completed', 'bob', []],
      ['3', 'completed', 'bob', ['1', '2']],
      ['4', 'completed', 'alice', ['3']],
    ]);
    const mail = await inbox(store, 'lead');
    const results = mail.filter((m) => m.type === 'result').map((m) => `${m.from}: ${m.text.slice(0, 11)}`);
    expect(results).toEqual(expect.arrayContaining(['bob: Task 2 done', 'alice: Task 1 done', 'bob: Task 3 done', 'alice: Task 4 done']));
    for (const who of ['alice', 'bob']) {
      expect(mail.filter((m) => m.from === who && m.type === 'idle_notification').length, who).toBeGreaterThanOrEqual(2);
      expect(mail.find((m) => m.from === who && m.type === 'shutdown_response')?.payload, who).toMatchObject({ approve: true });
    }
    // Each result comes before the idle notification that follows it.
    const bobTypes = mail.filter((m) => m.from === 'bob').map((m) => m.type);
    expect(bobTypes.slice(0, 2)).toEqual(['result', 'idle_notification']);
    expect(readFileSync(path.join(root, 'teamux-demo/src/parser.mjs'), 'utf8')).toContain('export function parse');
    expect(bob.out).toContain('ok   parser.test.sh');
    expect(readFileSync(path.join(root, 'teamux-demo/README.md'), 'utf8')).toContain('# The demo parser');

    // The lead stays up until it is asked to stop too.
    expect(lead.child.exitCode).toBeNull();
    await waitFor(() => lead.out.includes('you can close teamux'), 'the lead\'s closing words', 10_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${panes()}`);
    });
    expect((await store.openRequest('shutdown', 'lead', 'lead', 'demo over')).ok).toBe(true);
    expect(await exited(lead, 10_000)).toBe(0);
    expect(lead.out).toContain('DEMO lead');
    const roster = (await store.config()).members.map((m) => [m.name, m.status, m.exitCode]);
    expect(roster).toEqual([['lead', 'exited', 0], ['alice', 'exited', 0], ['bob', 'exited', 0]]);
  });
});
