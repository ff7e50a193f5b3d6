/**
 * `teamux demo-server SCRIPT_DIR`: serve the offline demo model on its own. `teamux start` runs the
 * demo model in-process with node-pty panes; with the tmux backend the agents outlive the TUI, so
 * their model must too, and start runs this verb in a window of the team's tmux session instead.
 */
import * as path from 'node:path';
import { runDemoServer } from '../demo/main.js';
import { atomicWrite } from '../store/fsx.js';
import { EXIT_BAD_INPUT, EXIT_OK, onePositional, parse, UsageError } from './context.js';
import type { Verb } from './verb.js';

export const demoServerVerb: Verb = {
  name: 'demo-server',
  usage: ['demo-server SCRIPT_DIR [--port N] [--url-file FILE]'],
  examples: ['teamux demo-server examples/demo/scripts --port 8765'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { port: { type: 'string' }, 'url-file': { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } }, this.usage[0]!);
    const dir = path.resolve(ctx.cwd, onePositional(positionals, 'script folder', this.usage[0]!));
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port "${values.port}" is not a port number`, 'give 0 (any free port) to 65535');
    const r = await runDemoServer(dir, port);
    if (!r.ok) {
      ctx.err(`teamux: the demo scripts in ${dir} are not valid:\n${r.errors.join('\n')}`);
      return EXIT_BAD_INPUT;
    }
    if (values['url-file']) await atomicWrite(path.resolve(ctx.cwd, values['url-file']), r.server.url + '\n');
    ctx.out(`teamux demo model (scripts in ${dir}) serving at ${r.server.url}; stop with Ctrl-C`);
    await new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, () => resolve());
    });
    await r.server.close();
    return EXIT_OK;
  },
};
