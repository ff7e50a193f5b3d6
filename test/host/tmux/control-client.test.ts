import { describe, expect, it } from 'vitest';
import {
  ControlClient,
  TmuxClientExitedError,
  TmuxCommandError,
  type ControlNotification,
} from '../../../src/host/tmux/control-client.js';
import { FakeTmuxRunner, splitSequence } from '../../../src/host/tmux/fake-runner.js';

function start(runner = new FakeTmuxRunner()) {
  const client = ControlClient.start(runner, ['-C', 'attach-session', '-t', '=team']);
  const proc = runner.clients[0]!;
  const events: ControlNotification[] = [];
  client.onNotification((event) => events.push(event));
  return { runner, client, proc, events };
}

describe('ControlClient', () => {
  it('is ready once the attach is answered, and writes quoted command lines', async () => {
    const { runner, client } = start();
    runner.onCommand = (command) => (command.startsWith('display-message') ? { lines: ['%0 42'] } : {});
    await client.ready;
    await expect(client.command(['display-message', '-p', '#{pane_id} #{pane_pid}'])).resolves.toEqual(['%0 42']);
    expect(runner.clients[0]!.args).toEqual(['-C', 'attach-session', '-t', '=team']);
    expect(runner.lines).toEqual(['display-message -p "#{pane_id} #{pane_pid}"']);
  });

  it('rejects ready when the attach fails', async () => {
    const runner = new FakeTmuxRunner();
    runner.attachError = ['no sessions'];
    const { client } = start(runner);
    await expect(client.ready).rejects.toThrow(/no sessions/);
  });

  it('matches replies to commands in order and rejects %error with its lines', async () => {
    const { runner, client } = start();
    runner.onCommand = (command) =>
      command === 'bogus' ? { ok: false, lines: ['parse error: unknown command: bogus'] } : { lines: [command] };
    const first = client.command(['one']);
    const bad = client.command(['bogus']);
    const third = client.command(['three']);
    await expect(first).resolves.toEqual(['one']);
    const error = await bad.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TmuxCommandError);
    expect((error as TmuxCommandError).lines).toEqual(['parse error: unknown command: bogus']);
    await expect(third).resolves.toEqual(['three']);
  });

  it('collects one block per command of a sequence and stops at the first error', async () => {
    const { runner, client } = start();
    runner.onCommand = (command) => (command === 'fail' ? { ok: false, lines: ['nope'] } : { lines: [command] });
    await expect(client.sequence([['a'], ['b', 'x y']])).resolves.toEqual([['a'], ['b "x y"']]);
    await expect(client.sequence([['a'], ['fail'], ['c']])).rejects.toThrow(/nope/);
    await expect(client.command(['after'])).resolves.toEqual(['after']);
    expect(runner.lines).toEqual(['a ; b "x y"', 'a ; fail ; c', 'after']);
  });

  it('runs the settle hook before later notifications from the same read', async () => {
    const { proc, client, events } = start();
    await client.ready;
    const order: string[] = [];
    client.onNotification((event) => order.push(event.type));
    const done = client.command(['new-window'], () => order.push('settled'));
    // tmux's reply and the new pane's first output arriving in one chunk:
    proc.emit(`%begin 1 900 1\n%5 77\n%end 1 900 1\n%output %5 hi\n`);
    expect(order).toEqual(['settled', 'output']);
    await expect(done).resolves.toEqual(['%5 77']);
    // The fake's own (late) reply for the line is now unmatched and surfaces as a notification.
    await Promise.resolve();
    expect(events.some((event) => event.type === 'block')).toBe(true);
  });

  it('passes notifications through in wire order', async () => {
    const { proc, client, events } = start();
    await client.ready;
    proc.emit('%window-add @1\n%output %1 a\\033\n%layout-change @1 x y *\n');
    expect(events.map((event) => event.type)).toEqual(['window-add', 'output', 'layout-change']);
  });

  it('rejects pending commands when the client exits, keeping the %exit reason', async () => {
    const { proc, client } = start();
    await client.ready;
    const pending = client.command(['display-message']);
    proc.emit('%exit too far behind\n');
    proc.exit(0, null);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TmuxClientExitedError);
    expect(client.exited).toMatchObject({ reason: 'too far behind', code: 0 });
    await expect(client.command(['later'])).rejects.toBeInstanceOf(TmuxClientExitedError);
    const heard = await new Promise((resolve) => client.onExit(resolve));
    expect(heard).toMatchObject({ reason: 'too far behind' });
  });

  it('detaches by closing stdin', async () => {
    const { proc, client } = start();
    await client.ready;
    const exit = await client.close();
    expect(proc.ended).toBe(true);
    expect(exit).toMatchObject({ code: 0, signal: null });
  });

  it('kills a client that does not leave after stdin closes', async () => {
    const { proc, client } = start();
    await client.ready;
    proc.end = () => {}; // a wedged tmux client
    const exit = await client.close(20);
    expect(exit).toMatchObject({ code: null, signal: 'SIGTERM' });
  });

  it('kills with SIGKILL a client that outlives SIGTERM too', async () => {
    const { proc, client } = start();
    await client.ready;
    // A client whose server no longer serves it: it neither leaves on EOF nor on SIGTERM.
    proc.end = () => {};
    const kill = proc.kill.bind(proc);
    const signals: string[] = [];
    proc.kill = (signal = 'SIGTERM') => {
      signals.push(signal);
      if (signal === 'SIGKILL') kill(signal);
    };
    const exit = await client.close(20);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(exit).toMatchObject({ code: null, signal: 'SIGKILL' });
  });
});

describe('splitSequence (fake runner)', () => {
  it('splits on bare semicolons only', () => {
    expect(splitSequence('a "x ; y" ; b \\; c ; d')).toEqual(['a "x ; y"', 'b \\; c', 'd']);
  });
});
