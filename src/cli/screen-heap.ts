/**
 * The screen process's young generation. V8 grows its semi-spaces from 1 MiB to 16 MiB each when
 * many objects survive a scavenge, as they do while modules load and the panes start; the screen
 * then keeps 32 MiB of new space resident for the rest of its life (a third of its RSS), though it
 * uses a few MiB of it. With the growth factor at 1 the semi-spaces stay at their initial size:
 * measured on 8 panes × 5,000 lines of scrollback, RSS falls by ~16 MiB (bench/scale.mjs panes) at
 * no measurable cost in start-up or in CPU while panes print. V8 reads this flag each time it would
 * grow the new space, so setting it at run time, before the verb's modules load, works (unlike
 * --max-semi-space-size, which is read once when the heap is set up). TEAMUX_YOUNG_GEN=grow keeps
 * V8's default, for comparison.
 */
import { setFlagsFromString } from 'node:v8';

/** The verbs whose process is long-lived and holds panes: the screen. */
const SCREEN_VERBS = new Set(['start', 'attach']);

/** The V8 flag that keeps it so. */
export const SMALL_YOUNG_GENERATION = '--semi-space-growth-factor=1';

/** Keep V8's young generation at its initial size in a screen process; returns whether it did. */
export function keepYoungGenerationSmall(verb: string, env: NodeJS.ProcessEnv): boolean {
  if (!SCREEN_VERBS.has(verb) || env.TEAMUX_YOUNG_GEN === 'grow') return false;
  setFlagsFromString(SMALL_YOUNG_GENERATION);
  return true;
}
