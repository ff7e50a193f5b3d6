// The exact tmux command lines of the pipe-pane output path (the real-tmux behaviour is in
// host.integration.test.ts, which runs every case with control-mode and with pipe output).
import { describe, expect, it } from 'vitest';
import { closePipeCommand, noOutputCommand, pipePaneCommand } from '../../../src/host/tmux/commands.js';
import { sequenceLine } from '../../../src/host/tmux/quote.js';

describe('pipe-pane commands', () => {
  it('pipe.commands-are-exact-and-quote-the-fifo-path', () => {
    expect(pipePaneCommand('%3', '/tmp/teamux-tmux-Ab1/pane-3')).toEqual(['pipe-pane', '-O', '-t', '%3', 'exec cat > /tmp/teamux-tmux-Ab1/pane-3']);
    expect(pipePaneCommand('%3', "/tmp/it's here/pane-3")[4]).toBe(`exec cat > '/tmp/it'\\''s here/pane-3'`);
    expect(closePipeCommand('%3')).toEqual(['pipe-pane', '-t', '%3']);
    expect(noOutputCommand()).toEqual(['refresh-client', '-f', 'no-output']);
    // As one control-mode line, the shell command stays one argument.
    expect(sequenceLine([pipePaneCommand('%3', '/tmp/x y/p')])).toBe(`pipe-pane -O -t "%3" "exec cat > '/tmp/x y/p'"`);
  });
});
