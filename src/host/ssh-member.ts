/**
 * Running one member on another machine from its pane (see host/ssh.ts for the two steps): stage the
 * member's environment in a private file there through ssh's stdin, then run the member under
 * `ssh -tt` with this process's terminal, forwarding SIGTERM/SIGHUP/SIGINT to ssh so quitting the
 * screen ends the remote session. Credentials kept in local files (TEAMUX_NATS_PASSWORD_FILE,
 * _TOKEN_FILE, TEAMUX_NATS_NKEY, TEAMUX_NATS_CREDS) are read here and travel as values, since the
 * remote machine has no such files. Owns the two ssh child processes.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { envFileText, isStagedPath, runCommand, shippedEnv, sshArgv, stageCommand, type SshTarget } from './ssh.js';

/** What to run where. */
export interface SshMember {
  target: SshTarget;
  /** Extra ssh options (TEAMUX_SSH_OPTIONS, e.g. `-F ~/.ssh/teamux_config`). */
  sshOptions: string[];
  /** The program that is ssh (tests and wrappers may name another). */
  ssh?: string;
  /** The member's command on the remote machine. */
  argv: string[];
  /** Its working folder there (used when it exists). */
  cwd: string;
  /** This process's environment (the pane's). */
  env: NodeJS.ProcessEnv;
  /** The names of the member's own layout variables, shipped as well. */
  memberKeys: string[];
}

/** Why the remote member could not be started, for the pane. */
export interface SshProblem {
  message: string;
  hint: string;
}

/** The environment to ship, with file-held credentials read into values; a problem if one cannot be read. */
export function remoteEnv(m: Pick<SshMember, 'env' | 'memberKeys'>): { ok: true; env: Record<string, string> } | { ok: false; problem: SshProblem } {
  const env = shippedEnv(m.env, m.memberKeys);
  const files: Array<[string, string, (text: string) => string]> = [
    ['TEAMUX_NATS_PASSWORD_FILE', 'TEAMUX_NATS_PASSWORD', (t) => t.replace(/\r?\n$/, '')],
    ['TEAMUX_NATS_TOKEN_FILE', 'TEAMUX_NATS_TOKEN', (t) => t.replace(/\r?\n$/, '')],
    ['TEAMUX_NATS_NKEY', 'TEAMUX_NATS_NKEY_SEED', (t) => t.trim()],
    ['TEAMUX_NATS_CREDS', 'TEAMUX_NATS_CREDS_TEXT', (t) => t],
  ];
  for (const [fileVar, valueVar, clean] of files) {
    const file = m.env[fileVar];
    if (!file || env[valueVar]) continue;
    try {
      env[valueVar] = clean(readFileSync(file, 'utf8'));
    } catch (err) {
      return { ok: false, problem: { message: `cannot read ${fileVar} (${file}): ${(err as Error).message}`, hint: `fix ${fileVar} in the environment teamux start runs in` } };
    }
  }
  return { ok: true, env };
}

/** Stage the environment on the remote side; the staged file's path, or why not. */
export async function stage(m: SshMember, text: string): Promise<{ ok: true; path: string } | { ok: false; problem: SshProblem }> {
  const [cmd, ...args] = sshArgv(m.target, m.sshOptions, false, stageCommand());
  const child = spawn(m.ssh ?? cmd!, args, { stdio: ['pipe', 'pipe', 'pipe'], env: m.env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.on('error', () => undefined);
  child.stdin.end(text);
  const code = await new Promise<number | null>((resolve) => {
    child.on('error', (e) => {
      err += e.message;
      resolve(127);
    });
    child.on('close', (c) => resolve(c));
  });
  const where = `${m.target.user ? `${m.target.user}@` : ''}${m.target.host}${m.target.port ? `:${m.target.port}` : ''}`;
  const path = out.trim();
  if (code !== 0 || !isStagedPath(path)) {
    return {
      ok: false,
      problem: {
        message: `cannot reach ${where} over ssh (exit ${code ?? 'signal'}): ${err.trim().split('\n').slice(-2).join(' ') || out.trim() || 'no output'}`,
        hint: 'check that `ssh ' + where + ' true` works without a password prompt (a key in ssh-agent; TEAMUX_SSH_OPTIONS for -i/-F/-o), and that the remote login shell is POSIX',
      },
    };
  }
  return { ok: true, path };
}

/** Run the member: stage, then ssh -tt in this terminal; resolves with ssh's exit code. */
export async function runSshMember(m: SshMember, say: (line: string) => void): Promise<number> {
  const env = remoteEnv(m);
  if (!env.ok) {
    say(`teamux: ${env.problem.message}\n  hint: ${env.problem.hint}`);
    return 2;
  }
  const staged = await stage(m, envFileText(env.env));
  if (!staged.ok) {
    say(`teamux: ${staged.problem.message}\n  hint: ${staged.problem.hint}`);
    return 255;
  }
  const [cmd, ...args] = sshArgv(m.target, m.sshOptions, true, runCommand(staged.path, m.cwd, m.argv));
  const child = spawn(m.ssh ?? cmd!, args, { stdio: 'inherit', env: m.env });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const handlers = (['SIGTERM', 'SIGHUP', 'SIGINT'] as const).map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  try {
    return await new Promise<number>((resolve) => {
      child.on('error', (e) => {
        say(`teamux: cannot run ssh: ${e.message}`);
        resolve(127);
      });
      child.on('close', (code, signal) => resolve(code ?? (signal === 'SIGHUP' ? 129 : signal === 'SIGTERM' ? 143 : 1)));
    });
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
  }
}
