// One implementation, three front ends: the same sequence of protocol operations done through the
// CLI verbs, through teamux's own agent tools and through the MCP server, each on a fresh team,
// leaves the three team folders in the same state (tasks, inboxes, requests, roster, event log),
// with ids and times masked.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchTool } from '../../src/agent/tools/registry.js';
import type { ToolContext } from '../../src/agent/tools/types.js';
import type { TeamStore } from '../../src/store/team.js';
import { cli, makeTeam } from '../helpers/team.js';
import { callTool, mcpClient } from './helpers.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** The same steps, phrased for any front end; each returns the request id it created, if any. */
interface FrontEnd {
  call(as: string, op: string, input: Record<string, unknown>): Promise<string>;
}

async function scenario(fe: FrontEnd): Promise<void> {
  await fe.call('lead', 'create_task', { subject: 'Design', description: 'the API' });
  await fe.call('lead', 'create_task', { subject: 'Build', blockedBy: ['1'] });
  await fe.call('alice', 'task_claim', {});
  await fe.call('alice', 'task_update', { id: '1', revision: 3, description: 'the API, v2' });
  await fe.call('alice', 'task_complete', { id: '1', result: 'designed' });
  await fe.call('bob', 'task_claim', { id: '2' });
  await fe.call('alice', 'send_message', { to: 'bob', text: 'the design is in docs/' });
  await fe.call('lead', 'broadcast', { text: 'standup at ten' });
  // Plan answers need a signing key none of these front ends has (docs/protocol.md §12): the plan stays
  // pending; their refusal is tested in test/cli, test/agent/attack.test.ts and test/mcp/tools.test.ts.
  await fe.call('bob', 'submit_plan', { plan: '1. build 2. test' });
  await fe.call('lead', 'request_shutdown', { to: 'alice', reason: 'done' });
}

const REQ = /req-[a-z0-9-]+/;

/** The team folder's state with ids and times masked. */
async function state(store: TeamStore): Promise<unknown> {
  const mask = (v: unknown): unknown => JSON.parse(JSON.stringify(v), (k, x: unknown) => {
    // Each front end is its own process, so a claim's holding process differs (§7 of docs/protocol.md).
    if (k === 'holder' && x !== null) return '<holder>';
    if (typeof x !== 'string') return x;
    if (/^\d{4}-\d\d-\d\dT/.test(x)) return '<time>';
    if (/^msg-/.test(x)) return '<msg>';
    return x.replace(new RegExp(REQ, 'g'), '<req>');
  });
  const cfg = await store.config();
  const inboxes = Object.fromEntries(await Promise.all(cfg.members.map(async (m) => [m.name, (await store.mail.unread(m.name, m.name)).messages] as const)));
  const events = readFileSync(store.paths.events, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
  return mask({ members: cfg.members, tasks: (await store.tasks.snapshot()).tasks, inboxes, requests: (await store.requests.list()).requests, events });
}

async function team() {
  const t = await makeTeam(['alice', 'bob'], { planRequired: true });
  cleanups.push(t.cleanup);
  return t;
}

describe('one implementation', () => {
  it('ops.cli-agent-and-mcp-make-the-same-store-changes', async () => {
    // The CLI: argv for each op, run in-process exactly as bin/teamux runs it.
    const viaCli = await team();
    const env = { TEAMUX_TEAM_DIR: viaCli.dir };
    const argv = (as: string, op: string, i: Record<string, unknown>): string[] => {
      switch (op) {
        case 'create_task': return ['task', 'add', '--subject', i.subject as string, ...(i.description ? ['--description', i.description as string] : []), ...(i.blockedBy ? ['--blocked-by', (i.blockedBy as string[]).join(',')] : [])];
        case 'task_claim': return ['task', 'claim', ...(i.id ? [i.id as string] : []), '--as', as];
        case 'task_update': return ['task', 'update', i.id as string, '--as', as, '--revision', String(i.revision), '--description', i.description as string];
        case 'task_complete': return ['task', 'complete', i.id as string, '--as', as, '--result', i.result as string];
        case 'send_message': return ['msg', 'send', '--from', as, '--to', i.to as string, i.text as string];
        case 'broadcast': return ['msg', 'broadcast', '--from', as, i.text as string];
        case 'submit_plan': return ['plan', 'submit', '--as', as, i.plan as string];
        case 'approve_plan': return ['request', 'approve', i.request_id as string, '--as', as, '--feedback', i.feedback as string];
        case 'request_shutdown': return ['request', 'shutdown', '--from', as, '--to', i.to as string, '--reason', i.reason as string];
        default: throw new Error(`no CLI verb for ${op}`);
      }
    };
    await scenario({
      async call(as, op, input) {
        const r = await cli([...argv(as, op, input), '--json'], env);
        expect(r.code, `${op}: ${r.err}`).toBe(0);
        return (JSON.parse(r.out) as { id?: string }).id ?? '';
      },
    });

    // teamux's own agent tools, through the agent's dispatcher.
    const viaAgent = await team();
    await scenario({
      async call(as, op, input) {
        const team = await viaAgent.store.config();
        const ctx: ToolContext = { store: viaAgent.store, team, me: team.members.find((m) => m.name === as)!, lead: 'lead', cwd: viaAgent.dir, signal: new AbortController().signal, env: {} };
        const r = await dispatchTool({ name: op, input }, ctx, async () => 'approved');
        expect(r.isError, `${op}: ${r.text}`).toBe(false);
        return REQ.exec(r.text)?.[0] ?? '';
      },
    });

    // The MCP server, one real child process per member.
    const viaMcp = await team();
    const clients = new Map(await Promise.all(['lead', 'alice', 'bob'].map(async (n) => [n, await mcpClient(viaMcp.dir, n)] as const)));
    cleanups.push(async () => { await Promise.all([...clients.values()].map((c) => c.close())); });
    await scenario({
      async call(as, op, input) {
        const r = await callTool(clients.get(as)!, op, input);
        expect(r.isError, `${op}: ${r.text}`).toBe(false);
        return REQ.exec(r.text)?.[0] ?? '';
      },
    });

    const [a, b, c] = await Promise.all([state(viaCli.store), state(viaAgent.store), state(viaMcp.store)]);
    expect((a as { tasks: unknown[] }).tasks).toHaveLength(2);
    expect((a as { requests: unknown[] }).requests).toHaveLength(2);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });
});
