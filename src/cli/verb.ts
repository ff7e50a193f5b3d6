/**
 * The shape of a CLI verb, registered in one table (src/cli/table.ts) as tmux registers its commands:
 * a name, a one-line summary, usage lines, examples, and an exec that returns an exit code.
 */
import type { CliContext } from './context.js';

/** One CLI verb. */
export interface Verb {
  name: string;
  summary: string;
  usage: string[];
  examples: string[];
  run(ctx: CliContext, argv: string[]): Promise<number>;
}

/** A verb with sub-commands (`task add`, `task list`, …). */
export interface SubVerb {
  name: string;
  usage: string;
  run(ctx: CliContext, argv: string[]): Promise<number>;
}

/** Format a verb's help text. */
export function verbHelp(v: Verb): string {
  return [`teamux ${v.name} — ${v.summary}`, '', 'usage:', ...v.usage.map((u) => `  ${u}`), '', 'examples:', ...v.examples.map((e) => `  ${e}`)].join('\n');
}
