// Running a hook command line as Claude Code does: `sh -c COMMAND` with the hook's JSON on stdin, outside
// any team (TEAMUX_TEAM_DIR emptied, so only what the command names counts). Shared by the hook tests.
import { spawn, spawnSync } from 'node:child_process';

/** The perl on PATH, or '' when there is none. */
export const PERL = spawnSync('sh', ['-c', 'command -v perl'], { encoding: 'utf8' }).stdout.trim();

/** Run `sh -c command` with `input` on stdin; resolves with its exit code, stdout and stderr. */
export function runHook(command: string, input: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { env: { ...process.env, TEAMUX_TEAM_DIR: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.end(input);
    child.on('close', (code) => resolve({ code: code ?? 1, out, err }));
  });
}
