// The seeded PRNG the randomized tests replay from: the benches' own (bench/lib/prng.mjs), one copy.
export { prng } from '../../bench/lib/prng.mjs';
