/**
 * The shape of a CLI verb, registered in one table (src/cli/table.ts) as tmux registers its commands:
 * a name, usage lines, examples, and an exec that returns an exit code (the summary is in the table).
 */
import type { CliContext } from './context.js';

/** One CLI verb. */
export interface Verb {
  name: string;
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
export function verbHelp(v: Verb, summary: string): string {
  return [`teamux ${v.name} — ${summary}`, '', 'usage:', ...v.usage.map((u) => `  ${u}`), '', 'examples:', ...v.examples.map((e) => `  ${e}`)].join('\n');
}
