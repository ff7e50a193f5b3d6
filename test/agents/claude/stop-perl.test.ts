/**
 * The Stop hook as Claude Code runs it when Perl is there: the generated Perl script answers nothing
 * at once when nothing is unread (the bookkeeping, a detached `teamux hook StopIdle`, still reports the
 * member idle to the lead), and hands everything else to the node entry with the same argv and stdin:
 * a waiting message is handed over, garbage input and a stranger are reported as the full hook does.
 */
import { writeFileSync, chmodSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookCommand, stopHookEntry } from '../../../src/agents/claude/launch.js';
import { perlStopScript } from '../../../src/agents/claude/stop-perl.js';
import { verifiedPerl } from '../../../src/agents/claude/exec-check.js';
import { shellQuote } from '../../../src/host/tmux/quote.js';
import { scriptDigest } from '../../../src/store/exec-folder.js';
import { readClaudeActivity } from '../../../src/store/claude.js';
import { PERL, runHook } from '../../helpers/hook-shell.js';
import { BIN, makeTeam, waitFor } from '../../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => cleanup?.());


describe.skipIf(!PERL)('the Perl Stop hook', () => {
  it('claude.stop-perl-answers-alone-when-nothing-is-unread-and-falls-back-to-node-otherwise', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude' });
    cleanup = t.cleanup;
    const script = path.join(t.dir, '..', 'stop-hook');
    writeFileSync(script, perlStopScript(PERL, process.execPath, stopHookEntry(BIN), BIN));
    chmodSync(script, 0o700);
    const stop = { perl: PERL, file: script, sha256: scriptDigest(perlStopScript(PERL, process.execPath, stopHookEntry(BIN), BIN)) };
    const command = (member: string): string => hookCommand({ member, teamDir: t.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, perlStop: stop }, 'Stop');
    expect(command('amy')).toBe(`${verifiedPerl(PERL, stop, 1).map(shellQuote).join(' ')} hook Stop --as amy --team-dir ${t.dir}`);
    const input = (last: string): string => JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', transcript_path: '/nonexistent', stop_hook_active: false, last_assistant_message: last });

    // A message waits: the node entry hands it over (Claude keeps going).
    await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'and the "docs" too' });
    const waiting = await runHook(command('amy'), input('first'));
    expect(waiting.code).toBe(0);
    expect(JSON.parse(waiting.out)).toMatchObject({ decision: 'block' });
    expect(JSON.parse(waiting.out).reason).toContain('and the "docs" too');
    expect((await t.store.mail.unread('amy', 'amy')).messages).toEqual([]);

    // Nothing unread: no answer, at once; the detached bookkeeping reports amy idle to the lead.
    expect(await runHook(command('amy'), input('docs written'))).toEqual({ code: 0, out: '', err: '' });
    const toLead = await waitFor(async () => {
      const m = (await t.store.mail.unread('lead', 'lead')).messages;
      return m.some((x) => x.type === 'idle_notification') ? m : null;
    }, 'the idle_notification from the detached bookkeeping', 20_000);
    expect(toLead.find((m) => m.type === 'result')?.text).toBe('docs written');
    expect((await readClaudeActivity(t.store.paths, 'amy'))?.state).toBe('idle');

    // Garbage on stdin and a member the team does not have: the full hook says what is wrong.
    const garbage = await runHook(command('amy'), 'not json');
    expect(garbage.code).not.toBe(0);
    expect(garbage.err).toContain('hook input is not JSON');
    const stranger = await runHook(command('zed'), input('hi'));
    expect(stranger.code).not.toBe(0);
    expect(stranger.err).toMatch(/zed/);
  });
});
