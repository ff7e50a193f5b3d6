/**
 * The tmux stand-in on a real Multiplexer (fake pane processes): a respawned teammate keeps the slot
 * of the placeholder pane Claude Code split for it (layout position, pane number, tmux geometry),
 * and `select-pane -t %N` focuses the teamux pane, but only once the operator can be interrupted:
 * not within 3 s of their last key, not while an overlay is open, and not at all once they moved the
 * focus themselves. The focus gate is checked as a pure function too (replace-pane's
 * reducer step: test/mux/reduce.test.ts).
 */
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { multiplexerPanes } from '../../../src/agents/claude/mux-pane-control.js';
import { focusGate } from '../../../src/agents/claude/pane-focus.js';
import { TmuxBridge } from '../../../src/agents/claude/tmux-bridge.js';
import { launches, startMux, type MuxHarness } from '../../helpers/mux.js';
import { makeTeam, waitFor } from '../../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TEAMMATE = (name: string): string => `cd /w && env CLAUDECODE=1 /bin/claude --agent-id ${name}@session-12345678 --agent-name ${name} --team-name session-12345678 --model m`;

async function nativeScreen(): Promise<{ h: MuxHarness; bridge: TmuxBridge<string>; tmux: (...argv: string[]) => Promise<{ code: number; out: string; err: string }> }> {
  const t = await makeTeam(['bob']);
  cleanups.push(t.cleanup);
  const h = await startMux(t.store);
  cleanups.push(() => h.stop());
  const [lead] = await launches(t.store);
  const bridge = new TmuxBridge({ socket: path.join(t.dir, 'panes-test.sock'), store: t.store, control: multiplexerPanes(h.mux), lead: lead!, planRequired: false, session: 'test' });
  cleanups.push(() => bridge.dispose());
  return { h, bridge, tmux: (...argv) => bridge.handle(argv, '%0') };
}

describe('a respawned teammate keeps its slot', () => {
  it('native-panes.respawn-runs-the-teammate-in-the-placeholders-place', async () => {
    const { h, tmux } = await nativeScreen();
    expect((await tmux('split-window', '-d', '-t', '%0', '-h', '-l', '70%', '-P', '-F', '#{pane_id}', '--', 'cat')).out).toBe('%1\n');
    expect((await tmux('split-window', '-d', '-t', '%0', '-h', '-l', '70%', '-P', '-F', '#{pane_id}', '--', 'cat')).out).toBe('%2\n');
    expect(h.mux.state.panes.map((p) => `${p.number} ${p.id}`)).toEqual(['1 lead', '2 bob', '3 %1', '4 %2']);
    const where = '#{pane_id} #{pane_left},#{pane_top} #{pane_width}x#{pane_height}';
    const before = (await tmux('list-panes', '-F', where)).out;

    expect(await tmux('respawn-pane', '-k', '-t', '%1', '--', TEAMMATE('amy'))).toMatchObject({ code: 0, err: '' });
    expect(h.mux.state.panes.map((p) => `${p.number} ${p.id}`)).toEqual(['1 lead', '2 bob', '3 amy', '4 %2']);
    expect(h.host.proc('amy').spec.args.at(-1)).toBe(TEAMMATE('amy'));
    // The placeholder's process was hung up on, as tmux's respawn-pane -k does.
    expect(h.host.proc('%1').signals[0]).toBe('SIGHUP');
    // Claude Code still finds %1 where it put it.
    expect((await tmux('list-panes', '-F', where)).out).toBe(before);
    await h.see(/3 amy/);

    // The other placeholder, respawned too: still no pane moves.
    expect(await tmux('respawn-pane', '-k', '-t', '%2', '--', TEAMMATE('cal'))).toMatchObject({ code: 0 });
    expect(h.mux.state.panes.map((p) => `${p.number} ${p.id}`)).toEqual(['1 lead', '2 bob', '3 amy', '4 cal']);
    expect((await tmux('list-panes', '-F', where)).out).toBe(before);
  });
});

describe('select-pane focuses, the operator first', () => {
  it('native-panes.select-pane-focuses-when-the-operator-is-quiet-and-waits-while-they-type', async () => {
    const { h, tmux } = await nativeScreen();
    await tmux('split-window', '-d', '-t', '%0', '-h', '-P', '-F', '#{pane_id}', '--', 'cat');
    await tmux('split-window', '-d', '-t', '%0', '-h', '-P', '-F', '#{pane_id}', '--', 'cat');
    const focused = (): string => h.mux.state.panes[h.mux.state.focused]!.id;
    const active = async (): Promise<string> => (await tmux('list-panes', '-F', '#{pane_id} #{pane_active}')).out;
    expect(focused()).toBe('lead');

    // Nobody typed yet: the focus moves at once, and tmux's view follows.
    expect(await tmux('select-pane', '-t', '%1')).toMatchObject({ code: 0 });
    expect(focused()).toBe('%1');
    expect(await active()).toBe('%0 0\n%1 1\n%2 0\n');

    // The operator types into %1: a select-pane of %2 waits until they have been quiet for 3 s.
    h.type('draft');
    await waitFor(() => h.host.proc('%1').written.join('').includes('draft'), 'the keys to reach %1');
    const asked = Date.now();
    expect(await tmux('select-pane', '-t', '%2')).toMatchObject({ code: 0 });
    expect(focused()).toBe('%1');
    await waitFor(() => focused() === '%2', 'the focus to move once the operator is quiet', 15_000);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(2_500);

    // The operator types, then moves the focus themselves: the waiting request is dropped.
    h.type('x');
    await waitFor(() => h.host.proc('%2').written.join('').includes('x'), 'the key to reach %2');
    await tmux('select-pane', '-t', '%1');
    h.prefix('1');
    await waitFor(() => focused() === 'lead', 'the operator’s own focus');
    await new Promise((r) => setTimeout(r, 3_500)); // past the quiet time: nothing may move now
    expect(focused()).toBe('lead');
  }, 60_000);

  it('native-panes.the-focus-gate', () => {
    const draft = ['────────────', '❯\u00a0half a sentence', '────────────'];
    const empty = ['────────────', '❯\u00a0', '────────────'];
    expect(focusGate(10_000, { lastTypedAt: 0, focusedRows: null, busy: false })).toEqual({ now: true });
    expect(focusGate(10_000, { lastTypedAt: 8_000, focusedRows: null, busy: false })).toEqual({ now: false, retryInMs: 1_000, why: 'the operator is typing' });
    expect(focusGate(10_000, { lastTypedAt: 5_000, focusedRows: draft, busy: false })).toMatchObject({ now: false, why: "the focused pane's input line holds the operator's draft" });
    expect(focusGate(10_000, { lastTypedAt: 5_000, focusedRows: empty, busy: false })).toEqual({ now: true });
    expect(focusGate(10_000, { lastTypedAt: 0, focusedRows: null, busy: true })).toMatchObject({ now: false, why: 'the operator is in the middle of a command' });
  });
});
