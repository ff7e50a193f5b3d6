// Budgets through the real SDK against the scripted server: every model call lands in the member's
// usage log; once the member's (or the team's) budget is spent the agent makes no further call, its
// status line says "budget spent", the lead gets one message, and it goes on when the budget allows.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { budgetState, spentSince, windowSeconds } from '../../src/protocol/budget.js';
import { readUsage } from '../../src/store/usage.js';
import { agentTeam, callsOf, endpointOf, inbox, scripted, startAgent, waitFor, waitForMessage } from './helpers.js';

describe('budget rules', () => {
  it('budget.windows-and-caps', () => {
    expect(windowSeconds('24h')).toBe(86_400);
    expect(windowSeconds('90s')).toBe(90);
    expect(windowSeconds('7d')).toBe(604_800);
    expect(windowSeconds('1w')).toBeNull();
    const records = [
      { time: '2026-12-01T10:00:00.000Z', input: 500, output: 100, cacheRead: 0, cacheWrite: 0, usd: 0.5 },
      { time: '2026-12-01T11:00:00.000Z', input: 300, output: 100, cacheRead: 100, cacheWrite: 0, usd: null },
    ];
    const since = Date.parse('2026-12-01T10:30:00.000Z');
    expect(spentSince(records, since)).toEqual({ tokens: 500, usd: 0, unpriced: 1 });
    expect(spentSince(records, 0)).toEqual({ tokens: 1100, usd: 0.5, unpriced: 1 });
    expect(budgetState({ tokens: 1000, usd: null, windowS: 3600 }, spentSince(records, 0))).toMatchObject({ exhausted: true, text: '1.1k of 1.0k tokens in 1h' });
    expect(budgetState({ tokens: null, usd: 1, windowS: 86_400 }, spentSince(records, 0))).toMatchObject({ exhausted: false, fraction: 0.5, text: '$0.50 of $1.00 in 1d' });
  });
});

describe('agent budgets', () => {
  it('budget.spent-stops-model-calls-tells-the-lead-and-resumes-when-raised', async () => {
    const { store, root } = await agentTeam(['alice'], { alice: { budget: { tokens: 1, usd: null, windowS: 3600 } } });
    const server = await scripted({
      alice: {
        steps: [
          { when: { last_user_contains: 'first job' }, reply: [{ text: 'Looking.' }, { tool_use: { name: 'task_list', input: {} } }] },
          { reply: [{ text: 'Done after the raise.' }] },
        ],
      },
    }, { chunkDelayMs: 1 });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await waitFor(() => alice.output().includes('idle'), 'alice idle');
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'first job' });

    const told = await waitForMessage(store, 'lead', (m) => m.from === 'alice' && m.payload?.budget === 'spent', 'the lead told of the spent budget');
    expect(told.text).toMatch(/^alice's budget is spent: [0-9.]+k? of 1 tokens in 1h\. I have stopped calling the model/);
    expect(callsOf(server, 'alice')).toHaveLength(1);
    await waitFor(() => alice.output().includes('not calling the model until the window moves on'), 'the pane says so');
    await waitFor(() => alice.sink.writes.some((w) => w.includes('(budget spent)')), 'the status line says budget spent');
    const usage = await readUsage(store.paths, 'alice');
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ model: expect.any(String), input: expect.any(Number) });
    expect(usage[0]!.input + usage[0]!.output).toBeGreaterThan(1);

    // More messages while spent: no model call, and the lead is not told again.
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'still there?' });
    await waitFor(async () => (await store.mail.unread('alice', 'alice')).messages.length === 0, 'alice to take the message in');
    expect(callsOf(server, 'alice')).toHaveLength(1);

    // The lead raises the budget (team.json); the next message wakes alice and she goes on.
    const cfg = await store.config();
    cfg.members.find((m) => m.name === 'alice')!.budget = { tokens: 1_000_000, usd: null, windowS: 3600 };
    await store.writeConfig(cfg);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'budget raised' });
    await waitFor(() => callsOf(server, 'alice').length === 2, 'a model call after the raise', 20_000);
    await waitFor(() => alice.output().includes('budget available again'), 'the pane says it goes on');
    expect((await inbox(store, 'lead')).filter((m) => m.payload?.budget === 'spent')).toHaveLength(1);
    await waitFor(() => readFileSync(store.paths.usageLog('alice'), 'utf8').trim().split('\n').length === 2, 'the second call in the usage log');
  });

  it('budget.the-teams-budget-counts-every-members-calls', async () => {
    const { store, root } = await agentTeam(['alice', 'bob']);
    const cfg = await store.config();
    await store.writeConfig({ ...cfg, budget: { tokens: 50, usd: null, windowS: 3600 } });
    // bob already spent the team's budget.
    const { recordUsage } = await import('../../src/store/usage.js');
    await recordUsage(store.paths, 'bob', { time: new Date().toISOString(), model: 'claude-sonnet-5', input: 60, output: 0, cacheRead: 0, cacheWrite: 0, usd: null });
    const server = await scripted({ alice: { steps: [{ reply: [{ text: 'hi' }] }] } }, { chunkDelayMs: 1 });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'go' });
    const told = await waitForMessage(store, 'lead', (m) => m.from === 'alice' && m.payload?.budget === 'spent', 'the lead told');
    expect(told.text).toMatch(/^the team's budget is spent: 60 of 50 tokens in 1h/);
    expect(callsOf(server, 'alice')).toHaveLength(0);
    expect(alice.output()).toContain("the team's budget is spent");
  });
});
