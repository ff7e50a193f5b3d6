// A budget stops a Codex CLI member, with the real binary in a private tmux server against a scripted
// Responses API: the first response's usage (Codex's own rollout record, token_usage_record) is over
// cody's budget, so the command it asks for is refused by the PreToolUse hook (the reason reaches the
// model, the file does not exist) and the usage is in cody's usage log.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readUsage } from '../../../src/store/usage.js';
import { agentCliForTests } from '../../helpers/claude-code.js';
import { bodyText, startClaudeTeam } from '../claude/tmux-team.js';

const CODEX = agentCliForTests('codex');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: cxb
sidebar: { width: 60 }
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: cody, role: Tests, agent: { cli: codex }, budget: { tokens: 1000, window: 1h } }
`;

describe.skipIf(!CODEX)('a budget stops a Codex CLI member (real binary, e2e in tmux)', () => {
  it('codex.budget-real-spent-budget-refuses-the-next-tool', async () => {
    const spent = (root: string): string => path.join(root, 'spent.txt');
    const { root, store, server, idle } = await startClaudeTeam(CODEX!, 'cxb', LAYOUT, (root) => ({
      cody: {
        idle_reply: '(cody waits)',
        steps: [
          { when: { last_user_contains: 'make the file' }, reply: [{ tool_use: { name: 'exec_command', input: { cmd: `touch ${spent(root)}` } } }] },
          { reply: [{ text: 'The budget stopped me.' }] },
        ],
      },
    }), cleanups, 200, {}, false, 'codex');
    await idle('cody');
    await store.send({ from: 'lead', to: 'cody', type: 'message', text: 'please make the file' });
    const refused = await server.waitForRequest((r) => r.member === 'cody' && bodyText(r).includes('blocked: budget spent'), 90_000);
    expect(bodyText(refused)).toMatch(/cody's budget is spent: [\d.]+k? of 1\.0k tokens in 1h/);
    expect(existsSync(spent(root))).toBe(false);
    const usage = await readUsage(store.paths, 'cody');
    expect(usage.length).toBeGreaterThanOrEqual(1);
    expect(usage[0]!.input + usage[0]!.output + usage[0]!.cacheRead).toBeGreaterThan(1000);
  }, 180_000);
});
