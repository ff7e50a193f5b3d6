/**
 * A round trip for screen tests: paint a PaneTerminal into an off-screen blessed screen with
 * paintPane, let blessed draw, and feed what blessed wrote to the real terminal into a second
 * PaneTerminal (the "receiver", standing in for the user's terminal). If pane-view and the
 * blessed patch are right, the receiver shows the same cells, columns and attrs as the source.
 */

import { expect } from 'vitest';
import type { Cell } from '../../src/vt/cells.js';
import { PaneTerminal, type PaneCursor } from '../../src/vt/terminal.js';
import { paintPane, type PaneRect } from '../../src/ui/pane-view.js';
import { gridOf } from '../../src/ui/screen.js';
import { offscreen, type Offscreen } from './helpers.js';

export class Mirror {
  readonly view: Offscreen;
  readonly receiver: PaneTerminal;
  lastOutput = '';

  constructor(cols: number, rows: number, options: { fullUnicode?: boolean } = {}) {
    this.view = offscreen(cols, rows, options);
    this.receiver = new PaneTerminal({ cols, rows, scrollback: 0 });
  }

  /** Paint source at rect, draw, and let the receiver parse blessed's output. */
  async sync(source: PaneTerminal, rect?: PaneRect): Promise<PaneCursor> {
    const cursor = paintPane(gridOf(this.view.screen), source, rect ?? { left: 0, top: 0, width: source.cols, height: source.rows });
    this.view.screen.render();
    this.lastOutput = this.view.take();
    await this.receiver.writeAsync(this.lastOutput);
    return cursor;
  }

  dispose(): void {
    this.view.destroy();
    this.receiver.dispose();
  }
}

function describeRow(cells: Cell[]): string[] {
  return cells.map((c) => `${JSON.stringify(c.ch)}/${c.width}/${c.attr.toString(16)}`);
}

/** Assert the receiver shows exactly the source's cells (text, widths and attrs) row by row. */
export function expectSameCells(receiver: PaneTerminal, source: PaneTerminal): void {
  expect(receiver.snapshotText()).toEqual(source.snapshotText());
  for (let y = 0; y < source.rows; y++) {
    expect(describeRow(receiver.readRow(y)), `row ${y}`).toEqual(describeRow(source.readRow(y)));
  }
}
