// Running a hook command line as Claude Code does: `sh -c COMMAND` with the hook's JSON on stdin, outside
// any team (TEAMUX_TEAM_DIR emptied, so only what the command names counts). Shared by the hook tests.
import { spawn, spawnSync } from 'node:child_process';

/**
 * The perl on PATH (with JSON::PP, which the generated hooks load), or '' when there is none. On CI
 * (CI set; .ci/run installs perl) a missing one fails here, so the Perl forms are never skipped there.
 */
export const PERL = findPerl();

function findPerl(): string {
  const found = spawnSync('sh', ['-c', 'command -v perl && perl -MJSON::PP -MTime::HiRes -e 1'], { encoding: 'utf8' });
  const perl = found.status === 0 ? found.stdout.trim() : '';
  if (perl) return perl;
  if (process.env.CI) throw new Error('perl with JSON::PP is missing: the Perl hook forms cannot be tested (.ci/run installs it: apt-get install perl)');
  process.stderr.write('\n  NOTICE: perl with JSON::PP is not installed: the tests of the Perl hook forms are SKIPPED (apt-get install perl).\n\n');
  return '';
}

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
