// The key table, prefix routing and the input tokenizer.
import { describe, expect, it } from 'vitest';
import { InputTokenizer, keyName } from '../../src/keys/input.js';
import { buildKeyTable, keyBytes, routeKey } from '../../src/keys/keymap.js';
import { defaultBindings } from '../../src/mux/actions.js';
import { encodeForPane } from '../../src/mux/input.js';

function table(prefix = 'C-a', overrides = {}) {
  const t = buildKeyTable(prefix, overrides, defaultBindings());
  if (!t.ok) throw new Error(t.message);
  return t.table;
}

describe('key table', () => {
  it('keytable.defaults-and-overrides', () => {
    const t = table('C-g', { zoom: 'Z', quit: 'C-q' });
    expect(t.prefixBytes).toBe('\x07');
    expect(t.bindings.get('Z')).toBe('zoom');
    expect(t.bindings.has('z')).toBe(false);
    expect(t.bindings.get('C-q')).toBe('quit');
    expect(t.bindings.get('q')).toBeUndefined();
    expect(t.bindings.get('C-g')).toBe('send_prefix');
    expect(t.bindings.get('a')).toBe('approve');
  });

  it('keytable.prefix-must-be-typable', () => {
    expect(buildKeyTable('f5', {}, defaultBindings())).toMatchObject({ ok: false });
    expect(keyBytes('C-space')).toBe('\x00');
    expect(keyBytes('M-x')).toBe('\x1bx');
  });

  it('route.attach-passes-everything-but-the-prefix', () => {
    const t = table();
    expect(routeKey('attach', 'x', 'x', t)).toEqual({ mode: 'attach', kind: 'passthrough' });
    expect(routeKey('attach', '\x02', 'C-b', t)).toEqual({ mode: 'attach', kind: 'passthrough' });
    expect(routeKey('attach', '\x01', 'C-a', t)).toEqual({ mode: 'prefix', kind: 'await' });
    expect(routeKey('prefix', 'z', 'z', t)).toEqual({ mode: 'attach', kind: 'action', action: 'zoom' });
    expect(routeKey('prefix', '\x01', 'C-a', t)).toEqual({ mode: 'attach', kind: 'action', action: 'send_prefix' });
    expect(routeKey('prefix', 'Y', 'Y', t)).toEqual({ mode: 'attach', kind: 'unbound', key: 'Y' });
  });
});

describe('input tokenizer', () => {
  it('input.names-keys', () => {
    expect(keyName('\x01')).toBe('C-a');
    expect(keyName('\x1b[A')).toBe('up');
    expect(keyName('\x1bOB')).toBe('down');
    expect(keyName('\x1b[1;5C')).toBe('C-right');
    expect(keyName('\x1b[5~')).toBe('pageup');
    expect(keyName('\x1b[15~')).toBe('f5');
    expect(keyName('\x1bx')).toBe('M-x');
    expect(keyName('\r')).toBe('enter');
    expect(keyName('é')).toBe('é');
  });

  it('input.sequences-split-across-chunks', () => {
    const t = new InputTokenizer();
    expect(t.feed('a\x1b[')).toEqual([{ kind: 'key', raw: 'a', name: 'a' }]);
    expect(t.hasPending).toBe(true);
    expect(t.feed('1;5A')).toEqual([{ kind: 'key', raw: '\x1b[1;5A', name: 'C-up' }]);
  });

  it('input.lone-escape-after-flush', () => {
    const t = new InputTokenizer();
    expect(t.feed('\x1b')).toEqual([]);
    expect(t.flush()).toEqual([{ kind: 'key', raw: '\x1b', name: 'escape' }]);
  });

  it('input.sgr-mouse-and-bracketed-paste', () => {
    const t = new InputTokenizer();
    expect(t.feed('\x1b[<0;10;5M\x1b[<64;3;4M')).toEqual([
      { kind: 'mouse', raw: '\x1b[<0;10;5M', code: 0, x: 9, y: 4, release: false },
      { kind: 'mouse', raw: '\x1b[<64;3;4M', code: 64, x: 2, y: 3, release: false },
    ]);
    expect(t.feed('\x1b[200~line one\nline \x1b[2')).toEqual([]);
    expect(t.feed('01~x')).toEqual([{ kind: 'paste', text: 'line one\nline ' }, { kind: 'key', raw: 'x', name: 'x' }]);
  });

  it('input.cursor-keys-follow-the-pane-mode', () => {
    expect(encodeForPane('\x1b[A', true)).toBe('\x1bOA');
    expect(encodeForPane('\x1bOD', false)).toBe('\x1b[D');
    expect(encodeForPane('\x1b[1;5A', true)).toBe('\x1b[1;5A');
    expect(encodeForPane('q', true)).toBe('q');
  });
});
