/**
 * Budgets for Claude Code members, from Claude Code's own usage records: each response in its
 * transcript is copied once into the member's usage log; once its budget (or the team's) is spent,
 * the hooks (real `teamux hook` child processes) refuse every tool and every prompt, Stop hands
 * nothing over, the pane wake types nothing, the lead is told once, and all of it ends when the
 * budget is raised. The real binary against the demo model: budget-real.test.ts.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUDGET_RECHECK_MS, wakeIfIdle } from '../../../src/agents/claude/wake.js';
import { readClaudeActivity, updateClaudeActivity } from '../../../src/store/claude.js';
import { syncClaudeUsage } from '../../../src/store/claude-usage.js';
import { readUsage, recordUsage } from '../../../src/store/usage.js';
import type { TeamStore } from '../../../src/store/team.js';
import { BIN, REPO, makeTeam, waitFor } from '../../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => cleanup?.());

/** One transcript line of an assistant response (Claude Code writes one per content block). */
const response = (id: string, input: number, output: number, at: string): string =>
  JSON.stringify({ type: 'assistant', timestamp: at, requestId: `req_${id}`, message: { id, model: 'claude-opus-5-5', role: 'assistant', usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: 10, cache_creation_input_tokens: 0 } } });

async function team(budget: { member?: number; team?: number } = {}): Promise<{ store: TeamStore; dir: string; transcript: string }> {
  const t = await makeTeam(['amy', 'ann'], { runtime: 'claude' });
  cleanup = t.cleanup;
  await setBudgets(t.store, budget);
  return { ...t, transcript: path.join(t.dir, '..', 'transcript.jsonl') };
}

async function setBudgets(store: TeamStore, b: { member?: number; team?: number }): Promise<void> {
  const cfg = await store.config();
  const windowS = 3600;
  await store.writeConfig({
    ...cfg,
    budget: b.team ? { tokens: b.team, usd: null, windowS } : null,
    members: cfg.members.map((m) => (m.name === 'amy' ? { ...m, budget: b.member ? { tokens: b.member, usd: null, windowS } : null } : m)),
  });
}

/** Run `teamux hook ...` as Claude Code does, with `input` on stdin. */
function hook(dir: string, event: string, input: Record<string, unknown>): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, 'hook', event, '--as', 'amy', '--team-dir', dir], { cwd: REPO, env: { ...process.env, TEAMUX_TEAM_DIR: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(JSON.stringify({ hook_event_name: event, session_id: 's1', cwd: REPO, ...input }));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, out, err })));
}

const budgetNotes = async (store: TeamStore): Promise<number> => (await store.mail.unread('lead', 'lead')).messages.filter((m) => m.payload?.['budget'] === 'spent').length;

describe('budgets of Claude Code members', () => {
  it('claude.usage-sync-copies-each-response-once-from-complete-lines', async () => {
    const { store, transcript } = await team();
    const now = new Date().toISOString();
    // One response written as two lines (two content blocks), another, and half of a third.
    writeFileSync(transcript, [JSON.stringify({ type: 'user', message: { content: 'hi' } }), response('m1', 100, 20, now), response('m1', 100, 20, now), response('m2', 300, 40, now)].join('\n') + '\n' + response('m3', 7, 7, now).slice(0, 40));
    const price = (): number => 0.5;
    expect(await syncClaudeUsage(store.paths, 'amy', transcript, price)).toBe(2);
    expect(await syncClaudeUsage(store.paths, 'amy', transcript, price)).toBe(0);
    // The third line completed, and m2 written again (another content block): only m3 is new.
    appendFileSync(transcript, response('m3', 7, 7, now).slice(40) + '\n' + response('m2', 300, 40, now) + '\n');
    expect(await syncClaudeUsage(store.paths, 'amy', transcript, price)).toBe(1);
    const records = await readUsage(store.paths, 'amy');
    expect(records.map((r) => [r.model, r.input, r.output, r.cacheRead, r.usd, r.time])).toEqual([
      ['claude-opus-5-5', 100, 20, 10, 0.5, now], ['claude-opus-5-5', 300, 40, 10, 0.5, now], ['claude-opus-5-5', 7, 7, 10, 0.5, now],
    ]);
  });

  it('claude.budget-spent-refuses-every-tool-prompt-and-stop-then-resumes-when-raised', async () => {
    const { store, dir, transcript } = await team({ member: 1000 });
    writeFileSync(transcript, response('m1', 4000, 500, new Date().toISOString()) + '\n');
    // Within budget before the first response is read: a Read goes on.
    await setBudgets(store, { member: 100_000 });
    expect(await hook(dir, 'PreToolUse', { tool_name: 'Read', tool_input: { file_path: '/etc/hostname' }, transcript_path: transcript })).toMatchObject({ code: 0, out: '' });
    await setBudgets(store, { member: 1000 });

    // Spent: every tool is refused, whatever it is, with the reason.
    const read = await hook(dir, 'PreToolUse', { tool_name: 'Read', tool_input: { file_path: '/etc/hostname' }, transcript_path: transcript });
    const denied = JSON.parse(read.out) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(denied.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(denied.hookSpecificOutput.permissionDecisionReason).toMatch(/^blocked: budget spent \(amy's budget is spent: 4\.5k of 1\.0k tokens in 1h\)/);
    const mcp = await hook(dir, 'PreToolUse', { tool_name: 'mcp__teamux__task_list', tool_input: {}, transcript_path: transcript });
    expect(mcp.out).toContain('blocked: budget spent');
    // The pane title and roster read it from the activity record; the lead was told once.
    expect((await readClaudeActivity(store.paths, 'amy'))?.budget).toMatch(/^amy's budget is spent/);
    expect(await budgetNotes(store)).toBe(1);

    // A prompt typed into the pane is refused before it reaches the model.
    // A prompt is not sent: continue false (Claude Code then clears its input line, see hook-answers.ts).
    const prompt = JSON.parse((await hook(dir, 'UserPromptSubmit', { prompt: 'go on', transcript_path: transcript })).out) as { continue: boolean; stopReason: string };
    expect(prompt.continue).toBe(false);
    expect(prompt.stopReason).toContain("amy's budget is spent");
    // Stop does not keep it going with a message that arrived: the message waits, unread.
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'one more thing' });
    const stop = await hook(dir, 'Stop', { stop_hook_active: false, last_assistant_message: 'stopped', transcript_path: transcript });
    expect(stop).toMatchObject({ code: 0, out: '' });
    expect((await store.mail.unread('amy', 'amy')).messages.map((m) => m.text)).toEqual(['one more thing']);
    expect(await budgetNotes(store)).toBe(1);

    // Raised: the tools run again and the record no longer says spent.
    await setBudgets(store, { member: 100_000 });
    expect(await hook(dir, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: '/tmp/x', content: '' }, transcript_path: transcript })).toMatchObject({ code: 0, out: '' });
    expect((await readClaudeActivity(store.paths, 'amy'))?.budget).toBeNull();
  }, 60_000);

  it('claude.team-budget-counts-every-member-and-the-wake-types-nothing-until-raised', async () => {
    const { store } = await team({ team: 2000 });
    // ann (another member) spent the team's budget; amy's own usage is nothing.
    await recordUsage(store.paths, 'ann', { time: new Date().toISOString(), model: 'claude-opus-5-5', input: 2500, output: 10, cacheRead: 0, cacheWrite: 0, usd: 0 });
    await updateClaudeActivity(store.paths, 'amy', { state: 'idle' });
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'wake up' });
    const typed: string[] = [];
    const target = { exited: () => false, write: (d: string) => typed.push(d) };
    expect(await wakeIfIdle(store, 'amy', target)).toEqual({ typed: false, retryInMs: BUDGET_RECHECK_MS, why: 'budget spent' });
    expect(typed).toEqual([]);
    expect((await readClaudeActivity(store.paths, 'amy'))?.budget).toMatch(/^the team's budget is spent: 2\.5k of 2\.0k tokens in 1h/);
    expect(await budgetNotes(store)).toBe(1);
    expect(await wakeIfIdle(store, 'amy', target)).toMatchObject({ typed: false, why: 'budget spent' });
    expect(await budgetNotes(store)).toBe(1);
    await setBudgets(store, { team: 1_000_000 });
    expect(await wakeIfIdle(store, 'amy', target)).toEqual({ typed: true });
    expect(typed.join('')).toContain('wake up');
    expect((await readClaudeActivity(store.paths, 'amy'))?.budget).toBeNull();
  });

  it('claude.budget-window-moving-on-lets-the-wake-type-again', async () => {
    const { store } = await team();
    const cfg = await store.config();
    // A 3 s window; amy's one call is 1 s old, so it counts for about 2 s more.
    await store.writeConfig({ ...cfg, members: cfg.members.map((m) => (m.name === 'amy' ? { ...m, budget: { tokens: 100, usd: null, windowS: 3 } } : m)) });
    await recordUsage(store.paths, 'amy', { time: new Date(Date.now() - 1000).toISOString(), model: 'claude-opus-5-5', input: 500, output: 10, cacheRead: 0, cacheWrite: 0, usd: 0 });
    await updateClaudeActivity(store.paths, 'amy', { state: 'idle' });
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'after the window' });
    const typed: string[] = [];
    const target = { exited: () => false, write: (d: string) => typed.push(d) };
    expect(await wakeIfIdle(store, 'amy', target)).toMatchObject({ typed: false, why: 'budget spent' });
    expect((await readClaudeActivity(store.paths, 'amy'))?.budget).toMatch(/^amy's budget is spent: 510 of 100 tokens in 3s/);
    // Nothing is raised: the call leaves the window and the member goes on by itself.
    await waitFor(async () => (await wakeIfIdle(store, 'amy', target)).typed, 'the message typed once the window moved on', 15_000, 200);
    expect(typed.join('')).toContain('after the window');
    expect((await readClaudeActivity(store.paths, 'amy'))?.budget).toBeNull();
  });
});
