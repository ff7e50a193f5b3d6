/**
 * zod as every teamux module uses it: imported from here, never from 'zod' (test/layering.test.ts),
 * so this runs before any schema is made. Jitless: zod would otherwise generate a parser for each
 * object schema with `new Function` the first time it parses, code that V8's code cache cannot keep,
 * so every start (of the screen, and of every short CLI call) compiled it again. Measured on a
 * 4-pane start: ~20 ms less CPU before the first frame; parsing a task file costs the same either
 * way (20,000 parses: 89–116 ms jitless, 101–121 ms with the generated parsers). No code is made
 * from strings at run time, either.
 */
import { z } from 'zod';

z.config({ jitless: true });

export { z };
