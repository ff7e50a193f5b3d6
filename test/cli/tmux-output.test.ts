// TEAMUX_TMUX_OUTPUT picks how the tmux backend reads pane bytes: pipe (the default) or control; anything
// else is a user error naming the value, with a hint, before any tmux is touched.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/context.js';
import { tmuxOutput } from '../../src/cli/tmux-backend.js';

describe('TEAMUX_TMUX_OUTPUT', () => {
  it('tmux-output.pipe-by-default-control-on-request', () => {
    expect(tmuxOutput({})).toBe('pipe');
    expect(tmuxOutput({ TEAMUX_TMUX_OUTPUT: '' })).toBe('pipe');
    expect(tmuxOutput({ TEAMUX_TMUX_OUTPUT: 'pipe' })).toBe('pipe');
    expect(tmuxOutput({ TEAMUX_TMUX_OUTPUT: 'control' })).toBe('control');
  });

  it('tmux-output.an-unknown-value-is-a-usage-error-with-a-hint', () => {
    let thrown: unknown;
    try {
      tmuxOutput({ TEAMUX_TMUX_OUTPUT: 'fifo\x1b[2J' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    const e = thrown as UsageError;
    // The value is quoted with its control character escaped, never sent raw to the terminal.
    expect(e.message).toBe('TEAMUX_TMUX_OUTPUT="fifo\\u001b[2J" is not an output mode');
    expect(e.hint).toMatch(/TEAMUX_TMUX_OUTPUT=pipe \(the default\) or TEAMUX_TMUX_OUTPUT=control/);
  });
});
