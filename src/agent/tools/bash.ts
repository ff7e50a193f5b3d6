/**
 * The bash tool: one command in `bash -c`, in the member's working directory, with a timeout. The
 * child gets its own process group, so a timeout or an interrupt (Esc) ends everything it started;
 * its stderr is joined to its stdout, so the two keep their order; its environment carries no API
 * credentials. Output is cut to a head and a tail with a note on what was left out.
 */
import { spawn } from 'node:child_process';
import { z } from '../../protocol/zod.js';
import { defineTool, fail, ok, oneLine } from './types.js';

/** Characters of output kept: half from the start, half from the end. */
export const BASH_OUTPUT_LIMIT = 30_000;

/** Cut long output to its head and tail, with a note saying how much was left out. */
export function truncateOutput(text: string, limit = BASH_OUTPUT_LIMIT): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n[… output truncated: ${text.length - limit} characters left out …]\n${text.slice(-half)}`;
}

/** Run a command; resolves with its output and how it ended. */
export function runCommand(command: string, opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal: AbortSignal }): Promise<{ output: string; code: number | null; signal: string | null; timedOut: boolean; interrupted: boolean }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `exec 2>&1\n${command}`], { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    // Bounded capture: the first BASH_OUTPUT_LIMIT characters and a rolling tail of as many.
    let head = '';
    let tail = '';
    let total = 0;
    const take = (b: Buffer): void => {
      let s = b.toString('utf8');
      total += s.length;
      if (head.length < BASH_OUTPUT_LIMIT) {
        const room = BASH_OUTPUT_LIMIT - head.length;
        head += s.slice(0, room);
        s = s.slice(room);
      }
      if (s) tail = (tail + s).slice(-BASH_OUTPUT_LIMIT);
    };
    const captured = (): string => {
      const left = total - head.length - tail.length;
      return left > 0 ? `${head}\n[… ${left} characters left out …]\n${tail}` : head + tail;
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let timedOut = false;
    let interrupted = false;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    const onAbort = (): void => {
      interrupted = true;
      killGroup();
    };
    opts.signal.addEventListener('abort', onAbort);
    if (opts.signal.aborted) onAbort();
    let settled = false;
    const finish = (code: number | null, signal: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      resolve({ output: captured(), code, signal, timedOut, interrupted });
    };
    child.on('error', (err) => {
      head += `cannot start bash: ${err.message}`;
      finish(127, null);
    });
    child.on('close', finish);
  });
}

export const bash = defineTool({
  name: 'bash',
  description: 'Run a shell command with bash in your working directory. stdout and stderr are returned together (long output is truncated). Nothing interactive: stdin is closed.',
  input: z.strictObject({
    command: z.string().min(1),
    timeout_s: z.number().int().min(1).max(600).default(120).describe('seconds before the command is killed'),
  }),
  summary: (i) => oneLine(i.command, 70),
  async run(i, ctx) {
    const r = await runCommand(i.command, { cwd: ctx.cwd, env: ctx.env, timeoutMs: i.timeout_s * 1000, signal: ctx.signal });
    const output = truncateOutput(r.output.trimEnd());
    if (r.interrupted) return fail(`interrupted by the person at the pane\n${output}`.trimEnd());
    if (r.timedOut) return fail(`timed out after ${i.timeout_s}s and was killed\n${output}`.trimEnd());
    const how = r.code !== null ? `exit code ${r.code}` : `killed by ${r.signal}`;
    return ok(`${how}\n${output || '(no output)'}`);
  },
});
