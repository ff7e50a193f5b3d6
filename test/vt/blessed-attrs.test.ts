import blessed from 'blessed';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ATTR_DEFAULT,
  FLAG_BOLD,
  FLAG_DIM,
  FLAG_INVERSE,
  FLAG_ITALIC,
  FLAG_UNDERLINE,
  packAttr,
} from '../../src/vt/attr.js';
import { attrCode, codeAttr } from '../../src/ui/blessed-attrs.js';
import { installBlessedAttrs } from '../../src/ui/screen.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { offscreen, type Offscreen } from './helpers.js';

const screens: Offscreen[] = [];
function view(cols = 40, rows = 4): Offscreen {
  installBlessedAttrs();
  const created = offscreen(cols, rows);
  screens.push(created);
  created.take();
  return created;
}
afterEach(() => {
  for (const s of screens.splice(0)) s.destroy();
});

const identity = { _reduceColor: (c: number) => c };

describe('codeAttr', () => {
  it('emits italic and dim along with blessed flags', () => {
    expect(codeAttr.call(identity, packAttr(FLAG_ITALIC, 0x1ff, 0x1ff))).toBe('\x1b[3m');
    expect(codeAttr.call(identity, packAttr(FLAG_DIM, 0x1ff, 0x1ff))).toBe('\x1b[2m');
    expect(codeAttr.call(identity, packAttr(FLAG_BOLD | FLAG_DIM | FLAG_ITALIC | FLAG_UNDERLINE | FLAG_INVERSE, 0x1ff, 0x1ff)))
      .toBe('\x1b[1;2;3;4;7m');
  });

  it('emits system colours as 30-37/90-97 and the rest as 38;5;N / 48;5;N', () => {
    expect(codeAttr.call(identity, packAttr(0, 1, 0x1ff))).toBe('\x1b[31m');
    expect(codeAttr.call(identity, packAttr(0, 9, 12))).toBe('\x1b[104;91m');
    expect(codeAttr.call(identity, packAttr(0, 208, 0x1ff))).toBe('\x1b[38;5;208m');
    expect(codeAttr.call(identity, packAttr(0, 0x1ff, 17))).toBe('\x1b[48;5;17m');
    expect(codeAttr.call(identity, packAttr(FLAG_ITALIC, 255, 232))).toBe('\x1b[3;48;5;232;38;5;255m');
  });
});

describe('attrCode', () => {
  it('parses italic, dim and their resets without touching other flags', () => {
    const italicBold = attrCode('\x1b[1;3m', ATTR_DEFAULT, ATTR_DEFAULT);
    expect(italicBold).toBe(packAttr(FLAG_BOLD | FLAG_ITALIC, 0x1ff, 0x1ff));
    expect(attrCode('\x1b[23m', italicBold, ATTR_DEFAULT)).toBe(packAttr(FLAG_BOLD, 0x1ff, 0x1ff));
    const dimUnderline = attrCode('\x1b[2;4m', ATTR_DEFAULT, ATTR_DEFAULT);
    expect(attrCode('\x1b[22m', dimUnderline, ATTR_DEFAULT)).toBe(packAttr(FLAG_UNDERLINE, 0x1ff, 0x1ff));
  });

  it('parses 256-colour and truecolor, and resets with 0 / 39 / 49', () => {
    const coloured = attrCode('\x1b[38;5;208;48;5;17m', ATTR_DEFAULT, ATTR_DEFAULT);
    expect(coloured).toBe(packAttr(0, 208, 17));
    expect(attrCode('\x1b[39m', coloured, ATTR_DEFAULT)).toBe(packAttr(0, 0x1ff, 17));
    expect(attrCode('\x1b[49m', coloured, ATTR_DEFAULT)).toBe(packAttr(0, 208, 0x1ff));
    expect(attrCode('\x1b[m', coloured, ATTR_DEFAULT)).toBe(ATTR_DEFAULT);
    expect(attrCode('\x1b[91;42m', ATTR_DEFAULT, ATTR_DEFAULT)).toBe(packAttr(0, 9, 2));
    expect((attrCode('\x1b[38;2;255;0;0m', ATTR_DEFAULT, ATTR_DEFAULT) >> 9) & 0x1ff).toBe(196);
  });
});

describe('installBlessedAttrs on a rendered screen', () => {
  it('is idempotent', () => {
    installBlessedAttrs();
    const drawBefore = (blessed.screen as unknown as { prototype: { draw: unknown } }).prototype.draw;
    installBlessedAttrs();
    expect((blessed.screen as unknown as { prototype: { draw: unknown } }).prototype.draw).toBe(drawBefore);
  });

  it('a blessed box with italic, dim and 256-colour content reaches the terminal with those SGRs', async () => {
    const { screen, take } = view();
    const box = blessed.box({
      parent: screen, top: 0, left: 0, width: 40, height: 1,
      content: '\x1b[3mital\x1b[23m \x1b[2mdim\x1b[22m \x1b[38;5;208morange\x1b[39m {bold}B{/bold}',
      tags: true,
    });
    screen.render();
    const out = take();
    expect(out).toContain('\x1b[3mital');
    expect(out).toContain('\x1b[2mdim');
    expect(out).toContain('\x1b[38;5;208morange');
    expect(out).toContain('\x1b[1mB');
    // and a real terminal shows them: parse the output
    const receiver = new PaneTerminal({ cols: 40, rows: 4 });
    await receiver.writeAsync(out);
    expect(receiver.snapshotText()[0]).toBe('ital dim orange B');
    const row = receiver.readRow(0);
    expect(row[0]!.attr).toBe(packAttr(FLAG_ITALIC, 0x1ff, 0x1ff));
    expect(row[5]!.attr).toBe(packAttr(FLAG_DIM, 0x1ff, 0x1ff));
    expect(row[9]!.attr).toBe(packAttr(0, 208, 0x1ff));
    expect(row[16]!.attr).toBe(packAttr(FLAG_BOLD, 0x1ff, 0x1ff));
    receiver.dispose();
    box.destroy();
  });

  it('draws only what changed on the next frame', () => {
    const { screen, take } = view();
    const box = blessed.box({ parent: screen, top: 0, left: 0, width: 20, height: 1, content: 'hello world' });
    screen.render();
    expect(take()).toMatch(/hello.*world/);
    screen.render();
    expect(take()).toBe('');
    box.setContent('hello there');
    screen.render();
    const out = take();
    expect(out).toContain('there');
    expect(out).not.toContain('hello');
  });
});
