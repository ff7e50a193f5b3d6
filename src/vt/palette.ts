/**
 * Truecolor reduction: maps a 24-bit RGB colour to the nearest entry of the xterm-256 palette, the
 * deepest colour a blessed attr can carry. Only the 6x6x6 cube (16..231) and the grey ramp
 * (232..255) are candidates: the 16 system colours are themed by the user's terminal and have no
 * fixed RGB. As in tmux's colour_find_rgb, each channel is quantised onto the cube and the result
 * is compared with the nearest grey; since squared distance is separable per channel and minimised
 * over greys at the channel mean, this finds the true nearest entry. Pure and allocation-free.
 */

/** The channel levels of the 6x6x6 colour cube. */
export const CUBE_LEVELS: readonly number[] = [0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff];

/** The nearest cube level to a channel value: thresholds are the midpoints between levels. */
function toCubeIndex(v: number): number {
  if (v < 48) return 0;
  if (v < 115) return 1;
  if (v < 155) return 2;
  if (v < 195) return 3;
  if (v < 235) return 4;
  return 5;
}

function distanceSq(r1: number, g1: number, b1: number, r2: number, g2: number, b2: number): number {
  return (r1 - r2) * (r1 - r2) + (g1 - g2) * (g1 - g2) + (b1 - b2) * (b1 - b2);
}

/** The nearest xterm-256 palette index (16..255) to an RGB colour given as three 0..255 channels. */
export function nearestPaletteIndex(r: number, g: number, b: number): number {
  const qr = toCubeIndex(r);
  const qg = toCubeIndex(g);
  const qb = toCubeIndex(b);
  const cr = CUBE_LEVELS[qr]!;
  const cg = CUBE_LEVELS[qg]!;
  const cb = CUBE_LEVELS[qb]!;
  const cubeIndex = 16 + 36 * qr + 6 * qg + qb;
  if (cr === r && cg === g && cb === b) return cubeIndex;

  const mean = (r + g + b) / 3;
  const greyIndex = Math.min(23, Math.max(0, Math.round((mean - 8) / 10)));
  const grey = 8 + 10 * greyIndex;

  const cubeDistance = distanceSq(cr, cg, cb, r, g, b);
  const greyDistance = distanceSq(grey, grey, grey, r, g, b);
  return greyDistance < cubeDistance ? 232 + greyIndex : cubeIndex;
}

/** The nearest xterm-256 palette index to a packed 0xRRGGBB colour (xterm's IBufferCell form). */
export function nearestPaletteIndexOf(rgb: number): number {
  return nearestPaletteIndex((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff);
}

/** The RGB (0xRRGGBB) of a palette index 16..255; the system colours 0..15 use xterm's defaults. */
export function paletteRgb(index: number): number {
  if (index < 16) return SYSTEM_COLOURS[index] ?? 0;
  if (index < 232) {
    const i = index - 16;
    const r = CUBE_LEVELS[Math.floor(i / 36)]!;
    const g = CUBE_LEVELS[Math.floor(i / 6) % 6]!;
    const b = CUBE_LEVELS[i % 6]!;
    return (r << 16) | (g << 8) | b;
  }
  const v = 8 + 10 * (index - 232);
  return (v << 16) | (v << 8) | v;
}

/** xterm's default RGB for the 16 system colours (only used to describe them, never to match). */
const SYSTEM_COLOURS: readonly number[] = [
  0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
  0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
];
