/** A mulberry32 generator seeded with `seed`: floats in [0, 1) (bench/lib/prng.mjs). */
export function prng(seed: number): () => number;
