// The one action table: every bindable action has an entry, a key and help that fits the help box;
// the README key table is exactly the table's key list; the help box fits 80x24.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIONS, defaultBindings, HELP_WIDTH, keyRows } from '../../src/mux/actions.js';
import { KEY_ACTIONS } from '../../src/config/keys-actions.js';
import { buildKeyTable } from '../../src/keys/keymap.js';
import { helpBox } from '../../src/ui/chrome.js';
import { rowText, textWidth } from '../../src/ui/text.js';
import { REPO } from '../helpers/team.js';

function table(prefix = 'C-a', overrides = {}) {
  const t = buildKeyTable(prefix, overrides, defaultBindings());
  if (!t.ok) throw new Error(t.message);
  return t.table;
}

describe('action table', () => {
  it('actions.every-action-has-one-entry-a-key-and-help', () => {
    expect(ACTIONS.map((a) => a.name).sort()).toEqual([...KEY_ACTIONS].sort());
    const bound = new Set(table().bindings.values());
    for (const a of ACTIONS) {
      expect(bound.has(a.name), `${a.name} has a default key`).toBe(true);
      expect(a.help.length, `${a.name} has help`).toBeGreaterThan(5);
      expect(textWidth(a.group ?? a.help), `${a.name}'s help fits the help box`).toBeLessThanOrEqual(HELP_WIDTH);
    }
    const keys = defaultBindings().map(([k]) => k);
    expect(new Set(keys).size, 'no key bound twice').toBe(keys.length);
  });

  it('actions.readme-key-table-matches-the-action-table', () => {
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const start = readme.indexOf('| after C-a | action |\n|---|---|\n');
    expect(start).toBeGreaterThan(0);
    const lines = readme.slice(start).split('\n').slice(2);
    const documented = lines.slice(0, lines.findIndex((l) => !l.startsWith('|')));
    const expected = keyRows(table().bindings).map((r) => `| ${r.keys.map((k) => (k === '…' ? k : `\`${k}\``)).join(' ')} | ${r.help} |`);
    expect(documented).toEqual(expected);
  });

  it('actions.key-rows-follow-overrides', () => {
    const rows = keyRows(table('C-g', { zoom: 'Z', focus_3: 'F' }).bindings);
    expect(rows.find((r) => r.help.startsWith('zoom'))?.keys).toEqual(['Z']);
    // A rebound focus key breaks the 1 … 9 run, so every key is listed.
    expect(rows.find((r) => r.help.startsWith('focus pane N'))?.keys).toEqual(['1', '2', 'F', '4', '5', '6', '7', '8', '9']);
    expect(rows.find((r) => r.help.startsWith('send the prefix'))?.keys).toEqual(['C-g']);
  });

  it('help.box-fits-80x24-in-two-columns-with-every-entry', () => {
    const entries = keyRows(table().bindings);
    const box = helpBox('C-a', entries, 80, 23);
    const text = box.map(rowText);
    expect(box.length).toBeLessThanOrEqual(23);
    for (const line of text) expect(textWidth(line)).toBeLessThanOrEqual(80);
    expect(text[0]).toMatch(/^┌ teamux keys: C-a, then ─+┐$/);
    expect(text[text.length - 1]).toMatch(/^└─+┘$/);
    for (const line of text.slice(1, -1)) expect(line).toMatch(/^│.*│$/);
    // Two columns: fewer body rows than entries, and every entry's help appears whole.
    expect(box.length).toBeLessThan(entries.length);
    const all = text.join('\n');
    for (const e of entries) expect(all).toContain(e.help);
    expect(all).not.toContain('…\n');
    const second = entries[Math.ceil(entries.length / 2)]!.help;
    expect(text.some((l) => l.includes(entries[0]!.help) && l.includes(second)), 'the first row holds both columns').toBe(true);
  });

  it('help.box-on-a-narrow-short-screen-stays-inside', () => {
    const box = helpBox('C-a', keyRows(table().bindings), 40, 12);
    expect(box.length).toBeLessThanOrEqual(12);
    for (const r of box) expect(textWidth(rowText(r))).toBeLessThanOrEqual(40);
    expect(box.map(rowText).join('\n')).toContain('│ …');
  });
});
