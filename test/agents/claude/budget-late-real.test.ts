// A budget added to team.json while a Claude Code member is at work, with the real binary (the pinned
// version) in a private tmux server against a scripted Messages API this test owns. amy reads a file
// twice in one turn; the server streams its replies slowly, so the budget (one amy's spend is already
// over) is in team.json before the second Read reaches Claude Code. The first Read runs (PreToolUse
// sees every tool, and its Perl fast path lets an ungated tool of an unbudgeted member through); the
// second is refused by the same hook, in the same process (no restart), and the model is told why.
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { bodyText, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: ccl
sidebar: { width: 60 }
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: amy, role: Reads, agent: { cli: claude, permission_mode: acceptEdits } }
`;

describe.skipIf(!CLAUDE)('a budget added after launch (real binary, e2e in tmux)', () => {
  it('claude.budget-late-real-a-budget-added-to-team-json-refuses-the-next-read-without-a-restart', async () => {
    const notes = (root: string): string => path.join(root, 'notes.txt');
    const read = (root: string) => ({ tool_use: { name: 'Read', input: { file_path: notes(root) } } });
    // Each streamed event 400 ms apart: a reply takes seconds to arrive, time enough to edit team.json.
    const { root, store, server, idle, say, log } = await startClaudeTeam(CLAUDE!, 'ccl', LAYOUT, (root) => ({
      amy: {
        idle_reply: '(amy waits)',
        steps: [
          { when: { last_user_contains: 'read it twice' }, reply: [read(root)] },
          { reply: [read(root)] },
          { reply: [{ text: 'The budget stopped me.' }] },
        ],
      },
    }), cleanups, 200, { chunkDelayMs: 400 });
    writeFileSync(notes(root), 'the secret word is marmalade\n');
    await idle('amy');
    const pid = (await store.config()).members.find((m) => m.name === 'amy')!.pid;

    // No budget: the first Read runs (its result is in the next request) ...
    await say('lead', 'amy', 'please read it twice');
    const first = await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('marmalade'), 120_000);
    expect(bodyText(first)).not.toContain('blocked: budget spent');
    // ... and while the second Read streams in, team.json gives amy a budget her spend is over.
    const cfg = await store.config();
    await store.writeConfig({ ...cfg, members: cfg.members.map((m) => (m.name === 'amy' ? { ...m, budget: { tokens: 1000, usd: null, windowS: 3600 } } : m)) });
    expect(server.requests.filter((r) => r.member === 'amy' && bodyText(r).includes('marmalade'))).toHaveLength(1);

    const refused = await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('blocked: budget spent'), 120_000).catch(() => null);
    expect(refused, `amy's second Read refused (teamux.log:\n${log()})`).not.toBeNull();
    expect(bodyText(refused!)).toContain('PreToolUse:Read hook error');
    expect(bodyText(refused!)).toMatch(/amy's budget is spent: [\d.]+k? of 1\.0k tokens in 1h/);
    // The same process all along: no restart was needed.
    expect((await store.config()).members.find((m) => m.name === 'amy')!.pid).toBe(pid);
  }, 300_000);
});
