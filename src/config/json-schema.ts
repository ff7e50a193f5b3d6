/**
 * The JSON Schema of the layout file, generated from the zod schema so editors (yaml-language-server)
 * can complete and check layouts as they are typed. `layouts/schema.json` is this text, written by
 * `scripts/gen-schema.mjs`; a test keeps the checked-in copy from going stale.
 */
import { z } from '../protocol/zod.js';
import { LayoutSchema, MemberSchema } from './schema.js';

/** The layout file's JSON Schema (draft 2020-12), describing the file as written. */
export function layoutJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(LayoutSchema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      // "exactly one of command or agent (or remote: true)" is a refinement zod cannot export; say it in JSON Schema terms.
      if (ctx.zodSchema === MemberSchema) {
        ctx.jsonSchema.oneOf = [{ required: ['command'] }, { required: ['agent'] }, { required: ['remote'], properties: { remote: { const: true } } }];
      }
    },
  }) as Record<string, unknown>;
  return { ...schema, title: 'teamux layout', description: 'A team of agents and commands for teamux.' };
}

/** The exact text of `layouts/schema.json`. */
export function renderLayoutJsonSchema(): string {
  return `${JSON.stringify(layoutJsonSchema(), null, 2)}\n`;
}
