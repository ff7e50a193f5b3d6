/**
 * What the terminal shows, as the last draw left it: for each row, the packed attr and the text of
 * each cell (blessed's `olines`, which blessed-draw compares the painted grid with). blessed keeps
 * a [attr, text] array per cell, ~64 bytes a cell (0.8 MiB for a 200x64 terminal); a ShownRow is
 * one Uint32Array of attrs and one array of texts, 12 bytes a cell. The Screen's `alloc` is
 * replaced (ui/blessed-attrs.ts) to make them; a row blessed itself put back as an array of cells
 * (its line-insertion paths, unused by teamux) is converted where drawing meets it.
 */

/** An attr no cell has: the terminal's cell is unknown and will be drawn. */
export const UNKNOWN_ATTR = 0xffffffff;

/** One row of what the terminal shows. */
export class ShownRow {
  readonly attrs: Uint32Array;
  readonly texts: string[];

  constructor(cols: number, attr: number, text: string) {
    this.attrs = new Uint32Array(cols).fill(attr);
    this.texts = new Array<string>(cols).fill(text);
  }

  /** Cells of the row. */
  get length(): number {
    return this.texts.length;
  }
}

/** A row blessed keeps as cells, copied into a ShownRow (or a row of `cols` unknown cells when there is none). */
export function shownRowOf(row: readonly (readonly [number, string])[] | undefined, cols: number): ShownRow {
  const shown = new ShownRow(cols, UNKNOWN_ATTR, '');
  if (!row) return shown;
  for (let x = 0; x < Math.min(cols, row.length); x++) {
    const cell = row[x];
    if (!cell) continue;
    shown.attrs[x] = cell[0];
    shown.texts[x] = cell[1];
  }
  return shown;
}

/** The parts of blessed's Screen that alloc touches. */
interface AllocScreen {
  rows: number;
  cols: number;
  dattr: number;
  lines: ([number, string][] & { dirty?: boolean })[];
  olines: unknown[];
  program: { clear(): void };
}

/** blessed's Screen.prototype.alloc (0.1.81) with the shown cells kept as ShownRows. */
export function alloc(this: AllocScreen, dirty?: boolean): void {
  const lines: AllocScreen['lines'] = [];
  const shown: ShownRow[] = [];
  for (let y = 0; y < this.rows; y++) {
    const line: AllocScreen['lines'][number] = [];
    for (let x = 0; x < this.cols; x++) line[x] = [this.dattr, ' '];
    line.dirty = Boolean(dirty);
    lines.push(line);
    shown.push(new ShownRow(this.cols, this.dattr, ' '));
  }
  this.lines = lines;
  this.olines = shown;
  this.program.clear();
}
