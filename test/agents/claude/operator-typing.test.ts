// A message for an idle Claude Code member while the operator is typing in its pane, with the real
// binary in a private tmux server: the wake does not paste into the operator's half-typed prompt (the
// draft stays as it is and the model receives nothing), and once the operator clears the line the
// message is typed in and reaches the model on its own.
import { afterEach, describe, expect, it } from 'vitest';
import { OPERATOR_QUIET_MS } from '../../../src/agents/claude/prompt-box.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { waitFor } from '../../helpers/team.js';
import { bodyText, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: cco
sidebar: { width: 40 }
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: amy, role: Answers, agent: { cli: claude } }
`;

describe.skipIf(!CLAUDE)('the operator typing in a Claude Code pane (real binary, e2e in tmux)', () => {
  it('claude.wake-never-pastes-into-the-operators-half-typed-prompt', async () => {
    const t = await startClaudeTeam(CLAUDE!, 'cco', LAYOUT, () => ({ amy: { idle_reply: '(amy read it)', steps: [] } }), cleanups);
    await t.idle('amy');
    // The operator focuses amy's pane (C-a 2) and starts typing, without sending it.
    await t.d.keys('C-a', '2');
    await t.d.type('half typed');
    await t.d.waitFor(/❯.half typed/u, 'the draft in amy\'s input box', 20_000);
    await t.say('lead', 'amy', 'status please');
    // The wake holds the message: first while the operator's keys are recent, then for the draft.
    await waitFor(() => t.log().includes('a message for amy waits: its input line holds text not yet sent'), 'the wake waiting for the draft', 20_000, 50);
    const waitedSince = Date.now();
    await waitFor(() => Date.now() - waitedSince > OPERATOR_QUIET_MS, 'a few seconds more', OPERATOR_QUIET_MS + 5_000, 100);
    expect(t.server.requests.filter((r) => r.member === 'amy' && bodyText(r).includes('status please'))).toEqual([]);
    expect((await t.store.mail.unread('amy', 'amy')).messages.map((m) => m.text)).toEqual(['status please']);
    const screen = await t.d.screen();
    expect(screen).toMatch(/❯.half typed *│/u);
    expect(screen).not.toMatch(/half typed.*status please|Pasted text/);
    // The operator clears the line (C-u) and leaves it: the message goes in by itself, alone.
    await t.d.keys('C-u');
    const got = await t.server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('status please'), 30_000);
    expect(bodyText(got)).not.toContain('half typed');
    expect((await t.store.mail.unread('amy', 'amy')).messages).toEqual([]);
  }, 240_000);
});
