// A budget stops a Claude Code member, with the real binary (the pinned version) in a private tmux
// server against a scripted Messages API this test owns: the first response's usage (Claude Code's own
// transcript record) is over amy's budget, so the Write it asks for is refused by the PreToolUse hook
// (the reason reaches the model, the file does not exist), the title and roster say "(budget spent)",
// the lead is told once, a new message is not typed in and a prompt typed by hand is refused (and
// cleared from Claude Code's input line); raising the budget in team.json lets the message through and
// the Write run.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readClaudeActivity } from '../../../src/store/claude.js';
import { readUsage } from '../../../src/store/usage.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { waitFor } from '../../helpers/team.js';
import { bodyText, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: ccb
sidebar: { width: 60 }
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: amy, role: Writes, agent: { cli: claude, permission_mode: acceptEdits }, budget: { tokens: 1000, window: 1h } }
`;

describe.skipIf(!CLAUDE)('a budget stops a Claude Code member (real binary, e2e in tmux)', () => {
  it('claude.budget-real-spent-budget-refuses-the-next-tool-and-holds-messages-until-raised', async () => {
    const spentFile = (root: string): string => path.join(root, 'spent.txt');
    const write = (root: string) => ({ tool_use: { name: 'Write', input: { file_path: spentFile(root), content: 'written\n' } } });
    const { root, store, server, d } = await startClaudeTeam(CLAUDE!, 'ccb', LAYOUT, (root) => ({
      amy: {
        idle_reply: '(amy waits)',
        steps: [
          { when: { last_user_contains: 'write the file' }, reply: [{ text: 'Writing it.' }, write(root)] },
          { reply: [{ text: 'The budget stopped me.' }] },
          { when: { last_user_contains: 'budget raised' }, reply: [write(root)] },
          { reply: [{ text: 'spent.txt written.' }] },
        ],
      },
    }), cleanups);
    const target = spentFile(root);
    const activity = () => readClaudeActivity(store.paths, 'amy');
    await waitFor(async () => (await activity())?.state === 'idle', 'amy idle at its prompt', 60_000, 50);

    // The first response is over the budget: the Write it asks for is refused, and the model is told why.
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'please write the file' });
    const refused = await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('blocked: budget spent'), 90_000);
    expect(bodyText(refused)).toContain('PreToolUse:Write hook error');
    expect(bodyText(refused)).toMatch(/amy's budget is spent: [\d.]+k? of 1\.0k tokens in 1h/);
    expect(existsSync(target)).toBe(false);
    // Claude Code's usage record of that response is in amy's usage log.
    const usage = await readUsage(store.paths, 'amy');
    expect(usage.length).toBeGreaterThanOrEqual(1);
    expect(usage[0]!.input + usage[0]!.output + usage[0]!.cacheRead + usage[0]!.cacheWrite).toBeGreaterThan(1000);

    // The title and the roster say so; the lead is told once.
    await d.waitFor(/amy · Writes (idle|working) \(budget spent\)/, "amy's title saying budget spent", 60_000);
    await d.waitFor(/● amy +(idle|working) \(budget spent\)/, 'the roster saying budget spent', 30_000);
    const told = await waitFor(async () => {
      const m = (await store.mail.unread('lead', 'lead')).messages.filter((x) => x.payload?.['budget'] === 'spent');
      return m.length > 0 ? m : null;
    }, 'the lead told', 30_000);
    expect(told).toHaveLength(1);
    expect(told[0]!.text).toMatch(/^amy's budget is spent/);
    await waitFor(async () => (await activity())?.state === 'idle', 'amy idle after its turn', 60_000, 50);

    // A new message is not typed in while the budget is spent.
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'budget raised, go on' });
    await waitFor(() => readFileSync(store.paths.log, 'utf8').includes('a message for amy waits: budget spent'), 'the wake holding the message', 30_000, 100);
    expect(server.requests.some((r) => r.member === 'amy' && bodyText(r).includes('budget raised'))).toBe(false);
    expect((await store.mail.unread('amy', 'amy')).messages.map((m) => m.text)).toEqual(['budget raised, go on']);
    // Nor is a prompt the operator types into the pane: UserPromptSubmit refuses it with the reason.
    await d.keys('C-a', '2');
    await d.type('typed by hand');
    await d.keys('Enter');
    await d.waitFor(/Operation stopped by hook: teamux: amy's budget is spent/, 'the typed prompt refused with the reason', 30_000);
    await d.waitFor(/Raise the budget/, 'the reason in full', 30_000);
    expect(server.requests.some((r) => r.member === 'amy' && bodyText(r).includes('typed by hand'))).toBe(false);

    // Raised: the message goes in at once (team.json is watched), the Write runs. The refused prompt
    // did not stay in Claude Code's input line (the screen types only into an empty one); it reaches
    // the model now, with the reason it was stopped.
    const cfg = await store.config();
    await store.writeConfig({ ...cfg, members: cfg.members.map((m) => (m.name === 'amy' ? { ...m, budget: { tokens: 10_000_000, usd: null, windowS: 3600 } } : m)) });
    const raised = await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('budget raised'), 60_000);
    expect(bodyText(raised)).toMatch(/typed by hand.*Operation stopped by hook: teamux: amy's budget is spent/);
    expect(readFileSync(store.paths.log, 'utf8')).not.toContain('its input line holds text not yet sent');
    await waitFor(() => existsSync(target), 'spent.txt written once the budget was raised', 60_000, 50);
    await waitFor(async () => (await activity())?.budget === null, 'the budget note cleared', 30_000, 50);
    expect((await store.mail.unread('lead', 'lead')).messages.filter((x) => x.payload?.['budget'] === 'spent')).toHaveLength(1);
  }, 300_000);
});
