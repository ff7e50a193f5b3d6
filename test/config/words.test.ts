/**
 * The small pure pieces under the loader: command-line splitting, key names, did-you-mean and the
 * seed-task graph rules.
 */
import { describe, expect, test } from 'vitest';
import { splitCommand } from '../../src/config/command-words.js';
import { hasModifier, isKeyName, KEY_ACTIONS } from '../../src/config/keys-actions.js';
import { assignTaskIds, seedTaskProblems } from '../../src/config/seed-tasks.js';
import { didYouMean, editDistance } from '../../src/config/suggest.js';

describe('splitCommand', () => {
  test('splits words with quotes and escapes', () => {
    expect(splitCommand(`vim -c 'set nu' "a b" c\\ d ''`)).toEqual({ ok: true, words: ['vim', '-c', 'set nu', 'a b', 'c d', ''] });
  });
  test('expands a leading unquoted ~ only', () => {
    expect(splitCommand(`~/bin/x ~ '~/q' a~b`, '/home/u')).toEqual({ ok: true, words: ['/home/u/bin/x', '/home/u', '~/q', 'a~b'] });
  });
  test('refuses shell syntax', () => {
    for (const line of ['a | b', 'a > f', 'a; b', 'echo $HOME', 'echo "$HOME"', 'a && b', 'echo `x`', 'a # comment']) {
      expect(splitCommand(line).ok, line).toBe(false);
    }
    expect(splitCommand(`echo '$HOME | x'`)).toEqual({ ok: true, words: ['echo', '$HOME | x'] });
  });
  test('reports unterminated quotes and empty commands', () => {
    expect(splitCommand(`echo 'x`)).toEqual({ ok: false, message: 'unterminated single quote in command' });
    expect(splitCommand('echo "x')).toEqual({ ok: false, message: 'unterminated double quote in command' });
    expect(splitCommand('   ')).toEqual({ ok: false, message: 'command is empty' });
  });
});

describe('key names', () => {
  test('accepts the documented forms', () => {
    for (const key of ['n', 'N', '?', 'C-x', 'M-x', 'C-M-x', 'S-tab', 'tab', 'enter', 'left', 'f1', 'f12', 'space', 'C-space', '-', 'C--']) {
      expect(isKeyName(key), key).toBe(true);
    }
  });
  test('rejects everything else', () => {
    for (const key of ['', 'ab', 'Ctrl-a', 'C-', 'f13', 'f0', 'Enter', 'X-a', ' ', 'C-ab']) {
      expect(isKeyName(key), key).toBe(false);
    }
  });
  test('knows which keys carry a modifier', () => {
    expect(['C-a', 'M-x', 'C-space', 'C--'].map(hasModifier)).toEqual([true, true, true, true]);
    expect(['a', 'S-tab', 'space', '-'].map(hasModifier)).toEqual([false, false, false, false]);
  });
  test('lists every action once, focus_1..focus_9 included', () => {
    expect(new Set(KEY_ACTIONS).size).toBe(KEY_ACTIONS.length);
    expect(KEY_ACTIONS.filter((a) => a.startsWith('focus_')).length).toBe(11);
    expect(KEY_ACTIONS).toContain('send_prefix');
  });
});

describe('didYouMean', () => {
  test('suggests near misses only', () => {
    expect(editDistance('main-vertial', 'main-vertical')).toBe(1);
    expect(editDistance('teh', 'the')).toBe(1);
    expect(didYouMean('main-vertial', ['main-vertical', 'main-horizontal', 'tiled'])).toBe('main-vertical');
    expect(didYouMean('TILED', ['tiled'])).toBe('tiled');
    expect(didYouMean('grid', ['main-vertical', 'tiled'])).toBeUndefined();
  });
});

describe('seed tasks', () => {
  test('numbers tasks without ids, skipping explicit ones', () => {
    expect(assignTaskIds([{}, { id: 1 }, {}, { id: 'x' }, {}])).toEqual(['2', '1', '3', 'x', '4']);
  });
  test('finds unknown ids, duplicates and cycles', () => {
    expect(seedTaskProblems([{ id: 'a', blockedBy: ['b'] }, { id: 'b', blockedBy: ['a', 'zz'] }, { id: 'a' }])).toEqual([
      { path: [2, 'id'], message: 'duplicate task id "a" (also used by tasks[0])' },
      { path: [1, 'blockedBy', 1], message: 'no seed task has id "zz"', hint: 'seed task ids: a, b' },
      {
        path: [1, 'blockedBy', 0],
        message: 'dependency cycle: a -> b -> a',
        hint: 'each task is blocked by the next; remove one of these blockedBy entries',
      },
    ]);
  });
  test('a diamond is not a cycle', () => {
    expect(seedTaskProblems([{ id: 'a' }, { id: 'b', blockedBy: ['a'] }, { id: 'c', blockedBy: ['a'] }, { id: 'd', blockedBy: ['b', 'c'] }])).toEqual([]);
  });
});
