// A lead restarted by the screen enrols again: each start of its process gets a fresh one-time token
// (an unused earlier one is void from then on), so approve_plan works after C-a R; a server that
// reuses a spent token (what Claude Code restarting its MCP server inside the same process amounts
// to) is refused with what the operator must do. First the screen's authority alone, then the real
// Claude Code binary as the lead in a private tmux server.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { makeEnrolment, newKeyPair } from '../../../src/protocol/trust.js';
import type { ProtocolRequest } from '../../../src/protocol/types.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { BIN, makeTeam, waitFor } from '../../helpers/team.js';
import { trustRoot } from '../../agent/helpers.js';
import { callTool } from '../../mcp/helpers.js';
import { approvingLeadLayout, approvingLeadScripts, bodyText, environOf, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the lead enrols again after a restart', () => {
  it('claude.lead-restart-a-new-token-voids-the-unused-old-one-and-a-used-one-says-what-to-do', async () => {
    const t = await makeTeam([]);
    cleanups.push(t.cleanup);
    const { screen, authority, run } = await trustRoot(t.dir);
    const enrol = async (token: string): Promise<unknown> => {
      const id = await screen.trust.submit(makeEnrolment(token, { team: 'test', run, member: 'lead', publicKey: newKeyPair().publicKey }));
      return screen.trust.waitForAnswer(id, 15_000);
    };
    const first = authority.issueToken('lead');
    // The lead was restarted before its first process enrolled: the first token enrols nobody now.
    const second = authority.issueToken('lead');
    expect(await enrol(first)).toEqual({ refused: 'its token was given to an earlier process of lead and replaced when lead was restarted' });
    expect(await enrol(second)).toHaveProperty('certificate');
    const again = (await enrol(second)) as { refused: string };
    expect(again.refused).toMatch(/^its token was already used: a token enrols one process only\. If Claude Code restarted its MCP server.*restart it with C-a R/);
    // A token for another member does not void the lead's.
    const third = authority.issueToken('lead');
    authority.issueToken('amy');
    expect(await enrol(third)).toHaveProperty('certificate');
  });
});

const LAYOUT = approvingLeadLayout('ccr');

const scripts = approvingLeadScripts((write) => [
  { when: { last_user_contains: 'write hello' }, reply: [{ tool_use: { name: 'mcp__teamux__submit_plan', input: { plan: '1. write hello.txt' } } }] },
  { reply: [{ text: 'Waiting for my plan to be approved.' }] },
  { when: { all_user_contains: ['plan_approval_response'] }, reply: [write] },
  { reply: [{ text: 'hello.txt written.' }] },
]);

describe.skipIf(!CLAUDE)('a restarted Claude Code lead approves plans (real binary, e2e in tmux)', () => {
  it('claude.lead-restart-c-a-r-enrols-the-new-process-and-approve-plan-works', async () => {
    const { root, teamDir, store, server, d, log, idle, say } = await startClaudeTeam(CLAUDE!, 'ccr', LAYOUT, scripts, cleanups);
    const enrolled = (): number => log().split('\n').filter((l) => l.includes('mcp lead: signing key enrolled')).length;
    await Promise.all([idle('lead'), idle('amy')]);
    await waitFor(() => enrolled() === 1, "the lead's MCP server enrolled", 30_000, 50);
    const firstPid = (await store.config()).members.find((m) => m.name === 'lead')!.pid!;
    const handed = (): number => log().split('\n').filter((l) => l.includes("enrolment socket: handed lead's token")).length;
    expect(handed()).toBe(1);

    // The lead ends; C-a R starts it again, with a fresh token, and its new MCP server enrols.
    process.kill(firstPid, 'SIGTERM');
    await d.waitFor(/lead · Leads (exited|killed)/, 'the lead pane exited', 30_000);
    await d.keys('C-a', '1');
    await d.keys('C-a', 'R');
    const leadPid = await waitFor(async () => {
      const pid = (await store.config()).members.find((m) => m.name === 'lead')!.pid;
      return pid !== null && pid !== firstPid ? pid : null;
    }, 'the lead restarted', 30_000, 50);
    await waitFor(() => enrolled() === 2, "the restarted lead's MCP server enrolled", 60_000, 50);
    expect(handed()).toBe(2);
    expect(environOf(leadPid).TEAMUX_ENROL_TOKEN).toBeUndefined();

    // amy's plan, approved by the restarted lead through approve_plan: her Write runs.
    await idle('lead');
    await say('lead', 'amy', 'please write hello');
    const plan = await waitFor(async () => (await store.requests.list()).requests.find((q) => q.type === 'plan_approval' && q.from === 'amy'), "amy's plan request", 60_000);
    await idle('amy');
    // A second MCP server with the lead's environment, started outside the lead's pane: no token for it.
    const again = new Client({ name: 'again', version: '1.0.0' });
    await again.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', 'lead', '--team-dir', teamDir], env: environOf(leadPid), stderr: 'pipe' }));
    cleanups.push(() => again.close());
    const refused = await callTool(again, 'approve_plan', { request_id: plan.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("is not in lead's pane");

    await say('amy', 'lead', 'approve it now');
    await server.waitForRequest((r) => r.member === 'lead' && bodyText(r).includes(`approved the plan of amy (${plan.id})`), 60_000);
    const approved = (await store.requests.get(plan.id)) as { ok: true; value: ProtocolRequest };
    expect(approved.value.status).toBe('approved');
    await waitFor(() => existsSync(path.join(root, 'hello.txt')), 'hello.txt written after the restarted lead approved', 60_000, 50);
  }, 300_000);
});
