// The tmux stand-in against the exact command lines Claude Code 2.1.328 sent to a real tmux 3.3a
// (recorded with the real binary: test/fixtures/claude-tmux/2.1.328.jsonl holds argv, $TMUX_PANE,
// and what tmux printed). Replayed against TmuxShim over a surface laid out as tmux laid out that
// window, every answer must be byte for byte what tmux said. Then the failures: unknown commands,
// options, targets and formats get tmux-style errors and a log note, never a hang.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TmuxShim, type PaneRun, type ShimPane, type TmuxSurface } from '../../../src/agents/claude/tmux-shim/exec.js';
import { demoRouted, ownMcpConfig, teammateOf } from '../../../src/agents/claude/tmux-shim/teammate.js';
import { shellQuote } from '../../../src/host/tmux/quote.js';
import { REPO } from '../../helpers/team.js';

interface Recorded { argv: string[]; env: { TMUX: string; TMUX_PANE: string }; stdout: string; stderr: string; code: number }

const TRANSCRIPT: Recorded[] = readFileSync(path.join(REPO, 'test/fixtures/claude-tmux/2.1.328.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Recorded);

/** A window laid out the way tmux 3.3a did in the recording: 200x50 with a status line, -h -l N% splits. */
class TmuxLikeWindow implements TmuxSurface {
  readonly session = 'main';
  readonly serverPid = 4242;
  readonly panes_: ShimPane[] = [{ id: '%0', title: 'lead', left: 0, top: 0, width: 200, height: 49, active: true, dead: false, pid: 100, cwd: '/w', command: 'claude' }];
  readonly runs: Array<{ id: string; run: PaneRun }> = [];
  shim!: TmuxShim;
  private next = 1;
  window(): { width: number; height: number } { return { width: 200, height: 49 }; }
  panes(): ShimPane[] {
    const top = this.shim.options.get('pane-border-status', null, '@0') === 'top' ? 1 : 0;
    return this.panes_.map((p) => ({ ...p, top: p.top + top, height: p.height - top }));
  }
  async split(target: ShimPane, run: PaneRun, how: { horizontal: boolean; size: string | null }): Promise<{ id: string }> {
    const t = this.panes_.find((p) => p.id === target.id)!;
    const pct = Number(/^(\d+)%$/.exec(how.size ?? '50%')![1]);
    const id = `%${this.next++}`;
    const width = Math.floor((t.width * pct) / 100);
    this.panes_.push({ ...t, id, title: '', left: t.left + t.width - width, width, active: false, pid: 200 });
    t.width -= width + 1;
    this.runs.push({ id, run });
    return { id };
  }
  async respawn(target: ShimPane, run: PaneRun): Promise<{ ok: true }> {
    this.runs.push({ id: target.id, run });
    return { ok: true };
  }
  setTitle(target: ShimPane, title: string): void { this.panes_.find((p) => p.id === target.id)!.title = title; }
  focus(): void {}
  async kill(target: ShimPane): Promise<void> { this.panes_.splice(this.panes_.findIndex((p) => p.id === target.id), 1); }
}

function fresh(): { shim: TmuxShim; win: TmuxLikeWindow } {
  const win = new TmuxLikeWindow();
  const shim = new TmuxShim(win);
  win.shim = shim;
  return { shim, win };
}

describe('tmux stand-in: recorded Claude Code 2.1.328 calls', () => {
  it('tmux-shim.replays-the-recorded-transcript-with-tmux-exact-answers', async () => {
    const { shim, win } = fresh();
    expect(TRANSCRIPT.length).toBe(18);
    for (const rec of TRANSCRIPT) {
      const a = await shim.run(rec.argv, { pane: rec.env.TMUX_PANE });
      expect({ argv: rec.argv, out: a.out, err: a.err, code: a.code }).toEqual({ argv: rec.argv, out: rec.stdout, err: rec.stderr, code: rec.code });
      expect(a.notes, `no note for ${rec.argv.join(' ')}`).toEqual([]);
    }
    // What the surface was asked to do: a split running `cat`, then the teammate's command in %1.
    expect(win.runs.map((r) => [r.id, r.run.words.length === 1 ? r.run.words[0]!.slice(0, 20) : r.run.words])).toEqual([['%1', 'cat'], ['%1', 'cd /tmp/rec/work && ']]);
    expect(win.panes_.map((p) => p.id)).toEqual(['%0']);
  });

  it('tmux-shim.titles-options-and-teammate-command', async () => {
    const { shim, win } = fresh();
    for (const rec of TRANSCRIPT.slice(0, 15)) await shim.run(rec.argv, { pane: rec.env.TMUX_PANE });
    expect(win.panes()[1]).toMatchObject({ id: '%1', title: 'amy', top: 1, left: 60, width: 140 });
    expect((await shim.run(['show', '-p', '-t', '%1', '-v', 'remain-on-exit'], { pane: '%0' })).out).toBe('failed\n');
    expect((await shim.run(['display-message', '-p', '-t', '%1', '#{pane_title}|#{pane-border-status}|##'], { pane: '%0' })).out).toBe('amy|top|#\n');
    const respawned = win.runs[1]!.run.words[0]!;
    expect(teammateOf(respawned)).toEqual({ name: 'amy', team: 'session-9bf2ef80', agentId: 'amy@session-9bf2ef80', leadVerifyKey: '1796137255617.MCowBQYDK2VwAyEAvibN-Bmr3sQfPaNUtPOiAOb71HkNz6S6LU6tsIptpcw' });
    expect(demoRouted(respawned, 'http://127.0.0.1:33317/', 'lead', 'amy')).toContain('ANTHROPIC_BASE_URL=http://127.0.0.1:33317/m/amy CLAUDE_CODE_DISABLE');
    expect(teammateOf('cd /w && cat')).toBeNull();
    // The lead's MCP config (passed on by Claude Code) is swapped for the teammate's; an unknown one is refused.
    const withMcp = `${respawned} --mcp-config /t/claude/lead/mcp.json`;
    expect(ownMcpConfig(withMcp, '/t/claude/lead/mcp.json', '/t/claude/amy/mcp.json', shellQuote)).toBe(`${respawned} --mcp-config /t/claude/amy/mcp.json`);
    expect(ownMcpConfig(`${respawned} --mcp-config /elsewhere.json`, '/t/claude/lead/mcp.json', '/t/claude/amy/mcp.json', shellQuote)).toBeNull();
    expect(ownMcpConfig(respawned, '/t/claude/lead/mcp.json', '/t/claude/amy/mcp.json', shellQuote)).toBe(respawned);
    expect(teammateOf("claude --agent-name 'Bad Name' --team-name t")).toEqual({ error: expect.stringContaining('"Bad Name" is not a teamux member name') });
  });
});

describe('tmux stand-in: what it does not know', () => {
  it('tmux-shim.unknown-commands-options-targets-and-formats-are-tmux-style-errors', async () => {
    const { shim } = fresh();
    const cases: Array<[string[], string]> = [
      [['new-window', '-d'], 'unknown command: new-window\n'],
      [['-S', '/x', 'split-window', '-Q'], 'split-window: unknown option -- Q\n'],
      [['set-option', '-p', '-t', '%0', 'no-such-option', 'x'], 'invalid option: no-such-option\n'],
      [['display-message', '-p', '-t', '%9', '#{pane_id}'], "can't find pane: %9\n"],
      [['list-panes', '-t', '@7', '-F', '#{pane_id}'], "can't find window: @7\n"],
      [['display-message', '-p', '#{?pane_active,a,b}'], "format: #{?pane_active,a,b} is not supported by teamux's tmux stand-in (only plain #{variable} names)\n"],
      [['split-window', '-l', 'lots', '--', 'cat'], 'size is invalid: lots\n'],
      [['respawn-pane', '-t', '%0', '--', 'cat'], 'respawn pane failed: pane %0 still active\n'],
      [[], 'no command given\n'],
    ];
    for (const [argv, err] of cases) {
      const a = await shim.run(argv, { pane: '%0' });
      expect({ argv, err: a.err, code: a.code, out: a.out }).toEqual({ argv, err, code: 1, out: '' });
    }
    expect((await shim.run(['new-window'], { pane: '%0' })).notes).toEqual(['tmux stand-in: unknown command: new-window in ["new-window"]']);
    // An unknown plain variable expands to nothing as in tmux, and is noted for teamux.log.
    const v = await shim.run(['display-message', '-p', '#{pane_id}:#{no_such_thing}'], { pane: '%0' });
    expect([v.out, v.code, v.notes]).toEqual(['%0:\n', 0, ['tmux stand-in: unknown format variable #{no_such_thing} expanded to nothing (as tmux does)']]);
    expect((await shim.run(['-V'], { pane: null })).out).toBe('tmux 3.3a\n');
  });
});
