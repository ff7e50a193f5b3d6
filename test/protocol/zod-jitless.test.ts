// teamux's zod (src/protocol/zod.ts) parses without generating code: no schema compiles a parser
// with `new Function`, whichever module made it, and parsing still checks what it should.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from '../../src/protocol/zod.js';
import { Task } from '../../src/protocol/types.js';

const RealFunction = globalThis.Function;
afterEach(() => {
  globalThis.Function = RealFunction;
});

describe("teamux's zod", () => {
  it('zod.is-jitless-so-no-parser-is-made-from-a-string', () => {
    expect(z.config().jitless).toBe(true);
    const made: string[] = [];
    // zod makes its parsers with `new Function(...)` on the global Function: watch it.
    globalThis.Function = new Proxy(RealFunction, {
      construct(target, args) {
        made.push(String(args.at(-1)).slice(0, 60));
        return Reflect.construct(target, args);
      },
    });
    const Fresh = z.object({ name: z.string().min(1), n: z.number().int(), tags: z.array(z.string()).default([]) });
    expect(Fresh.parse({ name: 'amy', n: 2 })).toEqual({ name: 'amy', n: 2, tags: [] });
    expect(Fresh.safeParse({ name: '', n: 2.5 }).success).toBe(false);
    const task = { version: 2, id: '7', subject: 's', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: 't', updatedAt: 't' };
    expect(Task.parse(task).description).toBe('');
    expect(Task.safeParse({ ...task, revision: 0 }).success).toBe(false);
    expect(made).toEqual([]);
  });
});
