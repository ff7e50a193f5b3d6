import { describe, expect, it } from 'vitest';
import { FakeTmuxRunner, type FakeControlProcess } from '../../../src/host/tmux/fake-runner.js';
import type { TmuxPane } from '../../../src/host/tmux/pane.js';
import { TmuxHost } from '../../../src/host/tmux/host.js';
import type { PaneExit, PaneProcess, PaneSpec } from '../../../src/host/types.js';

const DEAD_SUB =
  'refresh-client -B "teamux-dead:%*:#{pane_dead} #{pane_dead_status} #{pane_dead_signal}" ; display-message -p "#{pid}"';
const FLAGS =
  '"#{cursor_x},#{cursor_y},#{cursor_flag},#{alternate_on},#{alternate_saved_x},#{alternate_saved_y},' +
  '#{pane_height},#{keypad_cursor_flag},#{keypad_flag},#{scroll_region_upper},#{scroll_region_lower},' +
  '#{mouse_standard_flag},#{mouse_button_flag},#{mouse_any_flag},#{mouse_sgr_flag},' +
  '#{pane_dead},#{pane_dead_status},#{pane_dead_signal}"';
const snapshotLine = (pane: string): string =>
  `display-message -p -t "${pane}" ${FLAGS} ; capture-pane -p -e -t "${pane}" -S -1000 ; ` +
  `capture-pane -p -e -a -q -t "${pane}" ; capture-pane -p -P -C -t "${pane}"`;
const LIST_PANES =
  'list-panes -s -t =team -F "#{pane_id}\\t#{pane_pid}\\t#{pane_dead}\\t#{pane_dead_status}\\t#{pane_dead_signal}\\t#{@teamux_member}"';

const alice: PaneSpec = {
  id: 'alice',
  command: 'claude',
  args: ['--model', 'x y'],
  cwd: '/work/team',
  env: { TEAMUX_TEAM_DIR: '/work/.teamux/t', TEAMUX_MEMBER: 'alice', TMUX: '/tmp/tmux-0/default,1,0' },
  cols: 80,
  rows: 24,
};
const bob: PaneSpec = { ...alice, id: 'bob', command: 'sh', args: [], env: { TEAMUX_MEMBER: 'bob' }, cols: 100, rows: 30 };

/** A fake tmux where the session does not exist yet and panes answer snapshots. */
function fakeTmux(options: { sessionExists?: boolean } = {}) {
  const runner = new FakeTmuxRunner();
  let sessionExists = options.sessionExists ?? false;
  runner.onRun = (args) => {
    const verb = args.find((arg) => /^[a-z]+-[a-z]+$/.test(arg) && arg !== 'set-option');
    if (args.includes('has-session')) return { code: sessionExists ? 0 : 1 };
    if (args.includes('new-session')) {
      sessionExists = true;
      return { stdout: '%0 1001\n' };
    }
    if (verb === 'list-sessions') return { stdout: '' };
    return {};
  };
  runner.onCommand = (command) => {
    if (command.startsWith('new-window')) return { lines: ['%1 1002'] };
    if (command === 'display-message -p "#{pid}"') return { lines: ['999'] };
    if (command.startsWith('display-message')) return { lines: ['2,0,1,0,0,0,24,0,0,0,23,0,0,0,0,0,,'] };
    if (command.startsWith('capture-pane -p -e -t')) return { lines: ['$ ', ''] };
    if (command.startsWith('capture-pane')) return { lines: [''] };
    return {};
  };
  const host = new TmuxHost({ socket: 's', session: 'team', cwd: '/work', env: {}, runner, configFile: '/dev/null' });
  return { runner, host, control: (): FakeControlProcess => runner.clients[0]! };
}

const exitOf = (pane: PaneProcess): Promise<PaneExit> => new Promise((resolve) => pane.onExit(resolve));

describe('TmuxHost command lines (fake runner)', () => {
  it('creates the session for the first member with one atomic argv, then attaches in control mode', async () => {
    const { runner, host, control } = fakeTmux();
    const pane = await host.spawn(alice);
    expect(runner.runs).toEqual([
      ['-u', '-L', 's', 'has-session', '-t', '=team'],
      [
        '-u', '-L', 's', '-f', '/dev/null',
        'set-option', '-gw', 'remain-on-exit', 'on', ';',
        'new-session', '-d', '-s', 'team', '-x', '80', '-y', '24', '-n', 'alice', '-c', '/work/team',
        '-e', 'TEAMUX_TEAM_DIR=/work/.teamux/t', '-e', 'TEAMUX_MEMBER=alice',
        '-P', '-F', '#{pane_id} #{pane_pid}', '--', 'claude', '--model', 'x y', ';',
        'set-option', '-p', '-t', '=team:', '@teamux_member', 'alice',
      ],
    ]);
    expect(control().args).toEqual(['-u', '-L', 's', '-f', '/dev/null', '-C', 'attach-session', '-t', '=team']);
    expect(runner.lines).toEqual([
      DEAD_SUB,
      'set-option -p -t "%0" @teamux_member alice ; resize-window -t "%0" -x 80 -y 24',
      snapshotLine('%0'),
    ]);
    expect(pane).toMatchObject({ id: 'alice', pid: 1001 });
    expect(pane.initialScreen).toBe('\x1b[0m\x1b[H\x1b[2J$ \r\n\x1b[0m\x1b[1;3H');
  });

  it('starts later members in new windows of the session, sized before they start', async () => {
    const { runner, host } = fakeTmux();
    await host.spawn(alice);
    const pane = await host.spawn(bob);
    expect(runner.lines.slice(3)).toEqual([
      'set-option -t =team: default-size 100x30 ; ' +
        'new-window -d -t =team: -n bob -c /work/team -e TEAMUX_MEMBER=bob -P -F "#{pane_id} #{pane_pid}" -- "exec sh"',
      'set-option -p -t "%1" @teamux_member bob ; resize-window -t "%1" -x 100 -y 30',
    ]);
    expect(pane).toMatchObject({ id: 'bob', pid: 1002, initialScreen: undefined });
    expect(runner.runs).toHaveLength(2);
  });

  it('sends input as hex send-keys, chunked, and resizes the member window', async () => {
    const { runner, host } = fakeTmux();
    await host.spawn(alice);
    const pane = await host.spawn(bob);
    const before = runner.lines.length;
    pane.write('hé\r');
    pane.write('x'.repeat(600));
    pane.resize(120, 40);
    pane.resize(120, 40);
    const sent = runner.lines.slice(before);
    expect(sent[0]).toBe('send-keys -H -t "%1" 68 c3 a9 0d');
    expect(sent[1]).toBe(`send-keys -H -t "%1" ${Array(512).fill('78').join(' ')}`);
    expect(sent[2]).toBe(`send-keys -H -t "%1" ${Array(88).fill('78').join(' ')}`);
    expect(sent.slice(3)).toEqual(['resize-window -t "%1" -x 120 -y 40']);
  });

  it('signals the member pid on kill', async () => {
    const { runner, host } = fakeTmux();
    const pane = await host.spawn(alice);
    pane.kill();
    pane.kill('SIGINT');
    expect(runner.signals).toEqual([
      { pid: 1001, signal: 'SIGTERM' },
      { pid: 1001, signal: 'SIGINT' },
    ]);
  });

  it('drops output a snapshot already holds and streams what follows it', async () => {
    const { runner, host, control } = fakeTmux();
    const onCommand = runner.onCommand;
    runner.onCommand = (command, client) => {
      if (command.startsWith('display-message')) client.output('%0', 'stale');
      return onCommand(command, client);
    };
    const pane = await host.spawn(alice);
    const seen: string[] = [];
    control().output('%0', 'fresh\r\n');
    pane.onData((data) => seen.push(Buffer.from(data as Uint8Array).toString()));
    await Promise.resolve();
    expect(seen).toEqual(['fresh\r\n']);
  });

  it('holds output while paused and delivers it in order on resume', async () => {
    const { host, control } = fakeTmux();
    const pane = await host.spawn(alice);
    const seen: string[] = [];
    pane.onData((data) => seen.push(Buffer.from(data as Uint8Array).toString()));
    control().output('%0', 'a');
    pane.pause();
    control().output('%0', 'b');
    control().output('%0', 'c');
    await Promise.resolve();
    expect(seen).toEqual(['a']);
    pane.resume();
    control().output('%0', 'd');
    await Promise.resolve();
    expect(seen.join('')).toBe('abcd');
  });

  it('reports exits from the dead-pane subscription, with status or signal name', async () => {
    const { host, control } = fakeTmux();
    const a = await host.spawn(alice);
    const b = await host.spawn(bob);
    control().emit('%subscription-changed teamux-dead $0 @1 1 %1 : 1 3 \n');
    control().emit('%subscription-changed teamux-dead $0 @0 0 %0 : 1  15\n');
    await expect(exitOf(b)).resolves.toEqual({ exitCode: 3, signal: null });
    await expect(exitOf(a)).resolves.toEqual({ exitCode: null, signal: 'SIGTERM' });
  });

  it('nudges tmux to reap a pane reported dead without a status, then reads the status again', async () => {
    const { runner, host, control } = fakeTmux();
    await host.spawn(alice);
    const b = await host.spawn(bob);
    const onCommand = runner.onCommand;
    let reads = 0;
    runner.onCommand = (command, client) =>
      command.startsWith('display-message -p -t "%1"')
        ? { lines: [++reads < 2 ? '1  ' : '1 7 '] }
        : onCommand(command, client);
    control().emit('%subscription-changed teamux-dead $0 @1 1 %1 : 1  \n');
    await expect(exitOf(b)).resolves.toEqual({ exitCode: 7, signal: null });
    expect(reads).toBe(2);
    expect(runner.signals).toEqual([
      { pid: 999, signal: 'SIGCHLD' },
      { pid: 999, signal: 'SIGCHLD' },
    ]);
    expect(runner.lines.at(-1)).toBe('display-message -p -t "%1" "#{pane_dead} #{pane_dead_status} #{pane_dead_signal}"');
  });

  it('checks the pane list when a window closes and reports panes that vanished', async () => {
    const { runner, host, control } = fakeTmux();
    const a = await host.spawn(alice);
    const b = await host.spawn(bob);
    const onCommand = runner.onCommand;
    runner.onCommand = (command, client) =>
      command.startsWith('list-panes') ? { lines: ['%0\t1001\t0\t\t\talice'] } : onCommand(command, client);
    control().emit('%unlinked-window-close @1\n');
    await expect(exitOf(b)).resolves.toEqual({ exitCode: null, signal: null });
    expect(runner.lines.at(-1)).toBe(LIST_PANES);
    expect((a as TmuxPane).exited).toBeUndefined();
  });

  it('attaches to a running session: finds members by @teamux_member and primes their screens', async () => {
    const { runner, host } = fakeTmux({ sessionExists: true });
    const onCommand = runner.onCommand;
    runner.onCommand = (command, client) =>
      command.startsWith('list-panes')
        ? { lines: ['%0\t1001\t0\t\t\talice', '%3\t1009\t1\t2\t\tbob', '%4\t1010\t0\t\t\t'] }
        : onCommand(command, client);
    const panes = await host.attach();
    expect(panes.map((pane) => [pane.id, pane.pid])).toEqual([
      ['alice', 1001],
      ['bob', 1009],
    ]);
    expect(runner.lines).toEqual([DEAD_SUB, LIST_PANES, snapshotLine('%0'), snapshotLine('%3')]);
    expect(panes[0]!.initialScreen).toContain('$ ');
    await expect(exitOf(panes[1]!)).resolves.toEqual({ exitCode: 2, signal: null });
  });

  it('refuses to attach when the session does not exist', async () => {
    const { host, runner } = fakeTmux();
    await expect(host.attach()).rejects.toThrow(/no tmux session "team" on socket "s"/);
    expect(runner.clients).toHaveLength(0);
  });

  it('detaches on dispose without kill and leaves the session alone', async () => {
    const { runner, host, control } = fakeTmux();
    await host.spawn(alice);
    await host.dispose();
    expect(control().ended).toBe(true);
    expect(runner.runs.flat()).not.toContain('kill-session');
    await expect(host.spawn(bob)).rejects.toThrow(/disposed/);
  });

  it('kills the session, and the server it emptied, on dispose with kill', async () => {
    const { runner, host, control } = fakeTmux();
    await host.spawn(alice);
    await host.dispose({ kill: true });
    expect(control().ended).toBe(true);
    expect(runner.runs.slice(2)).toEqual([
      ['-u', '-L', 's', '-f', '/dev/null', 'kill-session', '-t', '=team'],
      ['-u', '-L', 's', '-f', '/dev/null', 'list-sessions', '-F', '#{session_name}'],
      ['-u', '-L', 's', '-f', '/dev/null', 'kill-server'],
    ]);
  });

  it('uses the session name tmux will store (dots and colons become underscores)', async () => {
    const runner = new FakeTmuxRunner();
    runner.onRun = (args) => (args.includes('new-session') ? { stdout: '%0 1\n' } : { code: args.includes('has-session') ? 1 : 0 });
    const host = new TmuxHost({ socket: 's', session: 'my.team:x', cwd: '/', env: {}, runner });
    await host.spawn(alice);
    expect(runner.runs[0]).toEqual(['-u', '-L', 's', 'has-session', '-t', '=my_team_x']);
    expect(runner.runs[1]).toContain('my_team_x');
    expect(runner.clients[0]!.args.slice(-2)).toEqual(['-t', '=my_team_x']);
  });

  it('lists sessions and checks for one with exact-match targets', async () => {
    const runner = new FakeTmuxRunner();
    runner.onRun = (args) => (args.includes('list-sessions') ? { stdout: 'team\nother\n' } : { code: 1 });
    await expect(TmuxHost.listSessions('s', runner)).resolves.toEqual(['team', 'other']);
    await expect(TmuxHost.hasSession('s', 'team', runner)).resolves.toBe(false);
    expect(runner.runs).toEqual([
      ['-u', '-L', 's', 'list-sessions', '-F', '#{session_name}'],
      ['-u', '-L', 's', 'has-session', '-t', '=team'],
    ]);
  });
});
