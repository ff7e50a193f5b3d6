/**
 * The `tmux` stand-in a `native_teams` Claude Code lead finds first on its PATH: it sends its argv
 * and $TMUX_PANE as one JSON line to the running teamux over the unix socket named by `-S` or by
 * $TMUX (`socket,pid,session`), prints the answer's stdout and stderr and exits with its code. It
 * must start fast (Claude Code runs it for every pane it opens), so it imports nothing but node:net;
 * the store's log is loaded only on the failure path. It never waits forever.
 */
import { createConnection } from 'node:net';

const ANSWER_TIMEOUT_MS = 15_000;

/** The socket from `-S path` before the command, else from $TMUX. */
function socketOf(argv: readonly string[], env: NodeJS.ProcessEnv): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-S') return argv[i + 1] ?? null;
    if (!a.startsWith('-') || a === '--') break;
    if (a === '-L' || a === '-f') i++;
  }
  const tmux = env.TMUX;
  if (!tmux) return null;
  const comma = tmux.indexOf(',');
  return comma < 0 ? tmux : tmux.slice(0, comma);
}

/** Say what went wrong on stderr (Claude Code shows it) and in the team's teamux.log when known. */
async function failure(message: string, hint: string): Promise<number> {
  process.stderr.write(`${message}\nteamux: ${hint}\n`);
  const dir = process.env.TEAMUX_TEAM_DIR;
  if (dir) {
    try {
      const [{ Log }, { TeamPaths }] = await Promise.all([import('../../../store/log.js'), import('../../../store/paths.js')]);
      new Log(new TeamPaths(dir).log, 'tmux-standin').warn(`tmux ${process.argv.slice(2).join(' ')}: ${message} (${hint})`);
    } catch {
      // The message on stderr is what matters.
    }
  }
  return 1;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const socket = socketOf(argv, process.env);
  if (!socket) return failure('no server running (TMUX is not set)', "this `tmux` is teamux's stand-in for Claude Code's agent teams; it works only inside a running teamux pane (see docs/claude-native-teams.md)");
  return new Promise<number>((resolve) => {
    let buffer = '';
    let settled = false;
    const finish = (p: Promise<number> | number): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      void Promise.resolve(p).then(resolve);
    };
    const conn = createConnection(socket);
    const timer = setTimeout(() => finish(failure(`teamux did not answer within ${ANSWER_TIMEOUT_MS / 1000}s on ${socket}`, 'the screen may be stuck; see teamux.log')), ANSWER_TIMEOUT_MS);
    conn.setEncoding('utf8');
    // The pid lets the bridge find this process at once; it is checked there, not trusted (host/socket-caller.ts).
    conn.on('connect', () => conn.write(`${JSON.stringify({ argv, pane: process.env.TMUX_PANE ?? null, pid: process.pid })}\n`));
    conn.on('data', (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl < 0) return;
      let answer: { out?: unknown; err?: unknown; code?: unknown };
      try {
        answer = JSON.parse(buffer.slice(0, nl)) as typeof answer;
      } catch {
        finish(failure('teamux sent an answer that is not JSON', 'this is a bug in teamux; see teamux.log'));
        return;
      }
      const out = typeof answer.out === 'string' ? answer.out : '';
      const err = typeof answer.err === 'string' ? answer.err : '';
      const code = typeof answer.code === 'number' ? answer.code : 1;
      let pending = 1 + (err ? 1 : 0);
      const done = (): void => {
        if (--pending === 0) finish(code);
      };
      process.stdout.write(out, done);
      if (err) process.stderr.write(err, done);
    });
    conn.on('error', (e: NodeJS.ErrnoException) => {
      const gone = e.code === 'ENOENT' || e.code === 'ECONNREFUSED';
      finish(failure(gone ? `no server running on ${socket}` : `error connecting to ${socket} (${e.message})`, 'the teamux that started this Claude Code is not running any more; start the team again with `teamux start`'));
    });
    conn.on('end', () => finish(failure(`teamux closed ${socket} without an answer`, 'see teamux.log')));
  });
}

void main().then((code) => {
  process.exitCode = code;
});
