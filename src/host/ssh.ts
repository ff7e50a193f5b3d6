/**
 * Members on another machine, started over ssh: pure builders for what runs where. A member with
 * `host: user@machine[:port]` runs in its pane as two ssh calls made by `teamux ssh-member`
 * (host/ssh-member.ts):
 *
 * 1. stage: `ssh -T … sh -c 'umask 077; f=$(mktemp); cat > "$f"; echo "$f"'` with the member's
 *    environment (store URL, team, trust key, NATS credentials) written to its stdin: the variables
 *    land in a 0600 file with an unguessable name on the remote side and never on a command line or
 *    in a local file;
 * 2. run: `ssh -tt … sh -c '. FILE; rm -f FILE; cd DIR; exec teamux agent --as NAME'`: the remote
 *    shell reads the file into its environment, removes it, and runs the member in the pane's terminal.
 *
 * Nothing here starts a process; the builders return argv arrays and shell text, tested as such.
 */

/** Where a member runs: `user@machine[:port]`. */
export interface SshTarget {
  user: string | null;
  host: string;
  port: number | null;
}

/** The variables a remote member gets from the screen (besides its layout env), when set. */
export const SHIPPED_VARS = [
  'TEAMUX_STORE', 'TEAMUX_TEAM', 'TEAMUX_MEMBER', 'TEAMUX_PLAN_REQUIRED', 'TEAMUX_PLAN_APPROVER', 'TEAMUX_TRUST_KEY', 'TEAMUX_RUN',
  'TEAMUX_DEMO_URL', 'TEAMUX_AGENT_SYSTEM_PROMPT', 'TEAMUX_API_KEY_FILE', 'TEAMUX_API_KEY_COMMAND',
  'TEAMUX_NATS_USER', 'TEAMUX_NATS_PASSWORD', 'TEAMUX_NATS_TOKEN', 'TEAMUX_NATS_TLS_CA', 'TEAMUX_NATS_TLS_CERT', 'TEAMUX_NATS_TLS_KEY',
] as const;

/** Parse `user@machine[:port]`; null when it is not one (the layout schema checks the same shape). */
export function parseTarget(spec: string): SshTarget | null {
  const m = /^(?:([A-Za-z0-9._-]+)@)?([A-Za-z0-9][A-Za-z0-9.-]*)(?::([0-9]{1,5}))?$/.exec(spec);
  if (!m) return null;
  const port = m[3] === undefined ? null : Number(m[3]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { user: m[1] ?? null, host: m[2]!, port };
}

/** Quote one word for a POSIX shell. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The argv of an ssh call to `target`: ssh, the user's options, the port, the destination, the remote command. */
export function sshArgv(target: SshTarget, options: readonly string[], tty: boolean, remote: string): string[] {
  const argv = ['ssh', ...options, tty ? '-tt' : '-T'];
  if (!tty) argv.push('-o', 'BatchMode=yes');
  if (target.port !== null) argv.push('-p', String(target.port));
  argv.push(target.user ? `${target.user}@${target.host}` : target.host, remote);
  return argv;
}

/** The variables as a file a POSIX shell can source: `export NAME='value'` lines. */
export function envFileText(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
    .map(([k, v]) => `export ${k}=${shellQuote(v)}\n`)
    .join('');
}

/** The stage step's remote command: a private temporary file filled from stdin; prints its path. */
export function stageCommand(): string {
  return `sh -c ${shellQuote('umask 077 && f=$(mktemp "${TMPDIR:-/tmp}/teamux-env.XXXXXXXX") && cat > "$f" && printf "%s\\n" "$f"')}`;
}

/** True for a path the stage step can have printed (what the run step will source and remove). */
export function isStagedPath(path: string): boolean {
  return /^\/[A-Za-z0-9._/-]*\/teamux-env\.[A-Za-z0-9]{8}$/.test(path);
}

/**
 * The run step's remote command: source and remove the staged file, go to `cwd` when that folder
 * exists there (else stay in the home folder and say so), then exec `argv`.
 */
export function runCommand(staged: string, cwd: string, argv: readonly string[]): string {
  const f = shellQuote(staged);
  const dir = shellQuote(cwd);
  const script = [
    `set -a; . ${f}; set +a; rm -f ${f}`,
    `cd ${dir} 2>/dev/null || { echo "teamux: ${cwd.replace(/["`$\\]/g, '')} does not exist on $(hostname); running in $HOME" >&2; cd; }`,
    `exec ${argv.map(shellQuote).join(' ')}`,
  ].join('; ');
  return `sh -c ${shellQuote(script)}`;
}

/** The environment a remote member gets: the shipped variables that are set, then the member's own. */
export function shippedEnv(env: Readonly<Record<string, string | undefined>>, memberKeys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...SHIPPED_VARS, ...memberKeys]) {
    const v = env[k];
    if (v !== undefined && v !== '') out[k] = v;
  }
  return out;
}
