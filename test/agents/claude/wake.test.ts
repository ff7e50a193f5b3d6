/**
 * Waking an idle Claude Code member through its pane: typed only while its activity says idle, once
 * (the cursor moves after the write), as one bracketed paste a teammate's text cannot break out of.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pasteAndSubmit, wakeIfIdle } from '../../../src/agents/claude/wake.js';
import { readClaudeActivity, updateClaudeActivity } from '../../../src/store/claude.js';
import { makeTeam } from '../../helpers/team.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function pane(): { typed: string[]; exited: () => boolean; write: (d: string) => void } {
  const typed: string[] = [];
  return { typed, exited: () => false, write: (d) => typed.push(d) };
}

describe('waking a Claude Code pane', () => {
  it('claude.wake-types-unread-messages-only-when-idle-and-only-once', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude' });
    cleanup = t.cleanup;
    const p = pane();
    await t.store.send({ from: 'lead', to: 'amy', type: 'task_assignment', text: 'take task 1' });
    await updateClaudeActivity(t.store.paths, 'amy', { state: 'working' });
    expect(await wakeIfIdle(t.store, 'amy', p)).toEqual({ typed: false, retryInMs: null, why: 'not idle' });
    expect(p.typed).toEqual([]);
    await updateClaudeActivity(t.store.paths, 'amy', { state: 'idle' });
    expect(await wakeIfIdle(t.store, 'amy', p)).toEqual({ typed: true });
    expect(p.typed).toEqual(['\x1b[200~<message from="lead" type="task_assignment">take task 1</message>\x1b[201~\r']);
    expect((await t.store.mail.unread('amy', 'amy')).messages).toEqual([]);
    expect((await readClaudeActivity(t.store.paths, 'amy'))?.state).toBe('working');
    // Marked working, so a second look types nothing even if it were idle-looking before the hook ran.
    expect((await wakeIfIdle(t.store, 'amy', p)).typed).toBe(false);
    expect(p.typed).toHaveLength(1);
  });

  it('claude.wake-paste-cannot-be-broken-out-of', () => {
    const typed = pasteAndSubmit('hi\x1b[201~\x03rm -rf ~\r\nline two\tx\x9b31m');
    expect(typed).toBe('\x1b[200~hi[201~rm -rf ~\nline two\tx31m\x1b[201~\r');
  });
});
