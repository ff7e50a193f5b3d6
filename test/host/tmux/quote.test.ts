import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/host/tmux/control-client.js';
import { argvArg, commandLine, literalFormat, quoteArg, sequenceLine, shellQuote } from '../../../src/host/tmux/quote.js';
import { ExecTmuxRunner } from '../../../src/host/tmux/runner.js';
import { killServer, privateSocket, tmuxSync } from './helpers.js';

describe('quoteArg', () => {
  it('leaves plain words bare', () => {
    expect(['send-keys', '-H', '-t', '=team:', 'c3', 'NAME=value', '/a/b.c', '-x'].map(quoteArg)).toEqual([
      'send-keys', '-H', '-t', '=team:', 'c3', 'NAME=value', '/a/b.c', '-x',
    ]);
  });

  it('quotes what the tmux parser would interpret', () => {
    expect(quoteArg('%1')).toBe('"%1"');
    expect(quoteArg('')).toBe('""');
    expect(quoteArg('#{pane_id} #{pane_pid}')).toBe('"#{pane_id} #{pane_pid}"');
    expect(quoteArg('a"b\\c$HOME ~x;')).toBe('"a\\"b\\\\c\\$HOME \\~x;"');
    expect(quoteArg('l1\nl2\r\t\x1b\x01\x7f')).toBe('"l1\\nl2\\r\\t\\e\\001\\177"');
    expect(quoteArg('héllo 漢')).toBe('"héllo 漢"');
  });

  it('refuses NUL, which no tmux string can carry', () => {
    expect(() => quoteArg('a\0b')).toThrow(/NUL/);
    expect(() => argvArg('a\0b')).toThrow(/NUL/);
  });

  it('builds command and sequence lines', () => {
    expect(commandLine(['display-message', '-p', '#{pane_id}'])).toBe('display-message -p "#{pane_id}"');
    expect(sequenceLine([['a', 'x;'], ['b']])).toBe('a "x;" ; b');
  });

  it('escapes a trailing semicolon in argv', () => {
    expect(['a;', 'a\\;', ';', 'a;b', 'plain'].map(argvArg)).toEqual(['a\\;', 'a\\\\;', '\\;', 'a;b', 'plain']);
  });

  it('escapes # for format-expanded arguments and quotes for sh', () => {
    expect(literalFormat('/tmp/#1')).toBe('/tmp/##1');
    expect(shellQuote('/usr/bin/claude')).toBe('/usr/bin/claude');
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
  });
});

describe('quoting round-trips through a real tmux 3.3a', () => {
  const socket = privateSocket();
  const runner = new ExecTmuxRunner();
  const dir = mkdtempSync(join(tmpdir(), 'teamux-quote-'));
  let client: ControlClient;

  const nasty = [
    'plain', ' spaced  out ', `a"b'c`, 'back\\slash', '$HOME', '~root', '~', '#{pane_id}', '# not a comment',
    ';', 'a;', 'a \\; b', 'x\\;', '{braces}', '%if 1', '%1', '-x', 'new\nline\r\ttab\x1b\x01\x7f', 'é漢字🙂',
    '=team:', 'NAME=value with space',
  ];

  beforeAll(async () => {
    tmuxSync(socket, ['new-session', '-d', '-s', 'q', '-x', '80', '-y', '24', 'sleep 300']);
    client = ControlClient.start(runner, ['-u', '-L', socket, '-C', 'attach-session', '-t', '=q']);
    await client.ready;
  });

  afterAll(async () => {
    await client?.close();
    killServer(socket);
    rmSync(dir, { recursive: true, force: true });
  });

  const saved = (): string => {
    const file = join(dir, 'buffer');
    tmuxSync(socket, ['save-buffer', '-b', 'q', file]);
    return readFileSync(file, 'utf8');
  };

  it.each(nasty)('control line keeps %j', async (text) => {
    await client.command(['set-buffer', '-b', 'q', '--', text]);
    expect(saved()).toBe(text);
  });

  it.each(nasty)('argv keeps %j', async (text) => {
    const result = await runner.run(['-L', socket, 'set-buffer', '-b', 'q', '--', argvArg(text)]);
    expect(result.code).toBe(0);
    expect(saved()).toBe(text);
  });
});
