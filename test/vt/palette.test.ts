import { describe, expect, it } from 'vitest';
import { nearestPaletteIndex, nearestPaletteIndexOf, paletteRgb } from '../../src/vt/palette.js';

describe('nearestPaletteIndex', () => {
  it('maps exact cube colours to their index', () => {
    expect(nearestPaletteIndex(0, 0, 0)).toBe(16);
    expect(nearestPaletteIndex(255, 0, 0)).toBe(196);
    expect(nearestPaletteIndex(0, 255, 0)).toBe(46);
    expect(nearestPaletteIndex(0, 0, 255)).toBe(21);
    expect(nearestPaletteIndex(255, 255, 255)).toBe(231);
    expect(nearestPaletteIndex(0x5f, 0x87, 0xaf)).toBe(16 + 36 * 1 + 6 * 2 + 3);
  });

  it('prefers the grey ramp for near greys', () => {
    expect(nearestPaletteIndex(128, 128, 128)).toBe(244);
    expect(nearestPaletteIndex(8, 8, 8)).toBe(232);
    expect(nearestPaletteIndex(30, 30, 30)).toBe(234);
    expect(nearestPaletteIndex(240, 240, 240)).toBe(255);
    expect(nearestPaletteIndex(250, 250, 250)).toBe(231);
  });

  it('quantises other colours to the nearest cube entry', () => {
    expect(nearestPaletteIndex(250, 128, 114)).toBe(209); // salmon -> #ff875f
    expect(nearestPaletteIndex(200, 10, 10)).toBe(160);
    expect(nearestPaletteIndexOf(0x1e90ff)).toBe(33); // dodger blue -> #0087ff
  });

  it('is the nearest of 16..255 by squared distance, for every sampled colour', () => {
    const distance = (a: number, b: number): number => {
      const dr = ((a >> 16) & 0xff) - ((b >> 16) & 0xff);
      const dg = ((a >> 8) & 0xff) - ((b >> 8) & 0xff);
      const db = (a & 0xff) - (b & 0xff);
      return dr * dr + dg * dg + db * db;
    };
    for (let r = 0; r < 256; r += 15) {
      for (let g = 0; g < 256; g += 17) {
        for (let b = 0; b < 256; b += 19) {
          const rgb = (r << 16) | (g << 8) | b;
          const chosen = distance(paletteRgb(nearestPaletteIndex(r, g, b)), rgb);
          let best = Infinity;
          for (let i = 16; i < 256; i++) best = Math.min(best, distance(paletteRgb(i), rgb));
          expect(chosen).toBe(best);
        }
      }
    }
  });

  it('paletteRgb describes cube and grey entries', () => {
    expect(paletteRgb(196)).toBe(0xff0000);
    expect(paletteRgb(232)).toBe(0x080808);
    expect(paletteRgb(255)).toBe(0xeeeeee);
  });
});
