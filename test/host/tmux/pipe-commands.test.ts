// The exact tmux command lines of the pipe-pane output path (the real-tmux behaviour is in
// host.integration.test.ts, which runs every case with control-mode and with pipe output).
import { describe, expect, it } from 'vitest';
import { attachArgs, closePipeCommand, pipePaneCommand } from '../../../src/host/tmux/commands.js';
import { sequenceLine } from '../../../src/host/tmux/quote.js';

describe('pipe-pane commands', () => {
  it('pipe.commands-are-exact-and-quote-the-fifo-path', () => {
    expect(pipePaneCommand('%3', '/tmp/teamux-tmux-Ab1/pane-3')).toEqual(['pipe-pane', '-O', '-t', '%3', 'exec cat > /tmp/teamux-tmux-Ab1/pane-3']);
    expect(pipePaneCommand('%3', "/tmp/it's here/pane-3")[4]).toBe(`exec cat > '/tmp/it'\\''s here/pane-3'`);
    expect(closePipeCommand('%3')).toEqual(['pipe-pane', '-t', '%3']);
    // Pipe output: no-output is set by the attach itself, never by a later refresh-client (see attachArgs).
    expect(attachArgs('team', { noOutput: true })).toEqual(['-C', 'attach-session', '-f', 'no-output', '-t', '=team']);
    expect(attachArgs('team')).toEqual(['-C', 'attach-session', '-t', '=team']);
    // As one control-mode line, the shell command stays one argument.
    expect(sequenceLine([pipePaneCommand('%3', '/tmp/x y/p')])).toBe(`pipe-pane -O -t "%3" "exec cat > '/tmp/x y/p'"`);
  });
});
