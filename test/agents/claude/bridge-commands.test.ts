// The pure parts of the tmux stand-in's bridge process and the screen's following of its panes: the
// exact tmux command lines (claude-squad style), what is read back from list-panes and from the
// subscriptions, and a bad spec on the bridge's stdin named clearly.
import { describe, expect, it } from 'vitest';
import { parseBridgeSpec } from '../../../src/agents/claude/bridge-process.js';
import { parseTagValue, tagChange, tagSubscriptionCommand } from '../../../src/host/tmux/follow.js';
import { focusRequestArgv, parseFocusRequest } from '../../../src/host/tmux/focus-request.js';
import { openPaneArgv, parseOpened, parseTagged, respawnPaneArgv, runWords } from '../../../src/host/tmux/pane-control.js';

const spec = { name: 'amy', command: '/bin/sh', args: ['-c', 'claude --agent-name amy'], cwd: '/w#1', env: { PATH: '/shim:/usr/bin', TMUX: '/t/tmux.sock,9,0', TMUX_PANE: '%1', HOME: '/h' } };

describe('tmux stand-in bridge: commands', () => {
  it('bridge-commands.open-and-respawn-carry-path-and-tmux-through-env-and-tag-the-pane', () => {
    expect(runWords(spec)).toEqual(['env', 'PATH=/shim:/usr/bin', 'TMUX=/t/tmux.sock,9,0', 'TMUX_PANE=%1', '/bin/sh', '-c', 'claude --agent-name amy']);
    expect(runWords({ ...spec, command: 'cat', args: [], env: {} })).toEqual(['exec cat']);
    expect(runWords({ ...spec, command: 'cat', args: [], env: { PATH: '/p' } })).toEqual(['env', 'PATH=/p', '/bin/sh', '-c', 'exec cat']);
    expect(openPaneArgv('sock', 'team', spec, '%1', 2)).toEqual([
      '-u', '-L', 'sock',
      'new-window', '-d', '-t', '=team:1002', '-n', 'amy', '-c', '/w##1', '-e', 'TERM=tmux-256color', '-e', 'PATH=/shim:/usr/bin', '-e', 'HOME=/h',
      '-P', '-F', '#{pane_id} #{pane_pid}', '--', 'env', 'PATH=/shim:/usr/bin', 'TMUX=/t/tmux.sock,9,0', 'TMUX_PANE=%1', '/bin/sh', '-c', 'claude --agent-name amy', ';',
      'set-option', '-p', '-t', '=team:1002.0', '@teamux_shim', '%1', ';',
      'set-option', '-p', '-t', '=team:1002.0', '@teamux_slot', '2', ';',
      'set-option', '-p', '-t', '=team:1002.0', '@teamux_member', 'amy',
    ]);
    expect(respawnPaneArgv('sock', '%7', spec).slice(3, 7)).toEqual(['respawn-pane', '-k', '-t', '%7']);
    expect(respawnPaneArgv('sock', '%7', spec).slice(-12)).toEqual([';', 'set-option', '-p', '-t', '%7', '@teamux_member', 'amy', ';', 'rename-window', '-t', '%7', 'amy']);
    expect(focusRequestArgv('sock', 'team', 'amy', 42)).toEqual(['-u', '-L', 'sock', 'set-option', '-t', '=team:', '@teamux_focus', '42 amy']);
    expect(tagSubscriptionCommand()).toEqual(['refresh-client', '-B', 'teamux-tags:%*:#{@teamux_slot} #{pane_pid} #{@teamux_member}']);
  });

  it('bridge-commands.reads-panes-tags-and-focus-requests-back', () => {
    expect(parseTagged('%0\t100\t0\t80\t24\t\t\tlead\n%3\t200\t1\t60\t20\t1\t%1\tamy\n%4\t300\t0\t80\t24\t\t\t\nnonsense\n')).toEqual([
      { paneId: '%0', pid: 100, dead: false, width: 80, height: 24, slot: null, shim: '', member: 'lead' },
      { paneId: '%3', pid: 200, dead: true, width: 60, height: 20, slot: 1, shim: '%1', member: 'amy' },
    ]);
    expect(parseOpened('%5 1234\n')).toEqual({ paneId: '%5', pid: 1234 });
    expect(parseOpened('no pane')).toBeNull();
    expect(parseTagValue('2 4321 amy')).toEqual({ slot: 2, pid: 4321, member: 'amy' });
    expect(parseTagValue(' 4321 lead')).toBeNull();
    expect(parseTagValue('  ')).toBeNull();
    expect(tagChange(undefined, { member: 'amy' })).toBe('appeared');
    expect(tagChange('%1', { member: 'amy' })).toBe('renamed');
    expect(tagChange('amy', { member: 'amy' })).toBe('none');
    expect(tagChange('amy', null)).toBe('none');
    expect(parseFocusRequest('1700000000000 amy')).toEqual({ at: 1700000000000, member: 'amy' });
    expect(parseFocusRequest('')).toBeNull();
    expect(parseFocusRequest('soon amy')).toBeNull();
  });

  it('bridge-commands.a-bad-spec-on-stdin-is-named', () => {
    expect(parseBridgeSpec('not json')).toEqual({ error: 'the bridge spec on stdin is not JSON' });
    expect(parseBridgeSpec('{"lead":{"name":"lead"}}')).toEqual({ error: 'the bridge spec on stdin has no valid lead (name, command, args, cwd, env)' });
    const lead = { name: 'lead', command: 'claude', args: ['-x'], cwd: '/w', env: { HOME: '/h' } };
    expect(parseBridgeSpec(JSON.stringify({ lead }))).toEqual({ error: 'the bridge spec on stdin needs socket, tmuxSocket, team and planRequired' });
    expect(parseBridgeSpec(JSON.stringify({ lead: { ...lead, env: { HOME: 1 } }, socket: 's', tmuxSocket: 't', team: 'x', planRequired: false }))).toHaveProperty('error');
    expect(parseBridgeSpec(JSON.stringify({ lead, socket: 's', tmuxSocket: 't', team: 'x', planRequired: true }))).toEqual({
      lead: { name: 'lead', role: 'lead', isLead: true, speaksProtocol: true, command: 'claude', args: ['-x'], cwd: '/w', env: { HOME: '/h' } },
      planRequired: true, socket: 's', tmuxSocket: 't', team: 'x',
    });
  });
});
