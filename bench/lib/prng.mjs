/**
 * mulberry32: a small seeded PRNG returning floats in [0, 1), so a generated file or a randomized test
 * replays exactly from its seed. Plain JavaScript so the benches can load it; the tests use it too
 * (test/helpers/prng.ts, typed by prng.d.mts).
 */

/** A generator seeded with `seed`. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
