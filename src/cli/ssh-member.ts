/**
 * `teamux ssh-member --host user@machine[:port] -- COMMAND…`: what the pane of a member with `host:`
 * runs (the screen builds the line, see launchOf in cli/screen-setup.ts). It ships the member's environment
 * (store, team, trust key, NATS credentials) to a private file on that machine through ssh's stdin and
 * runs COMMAND there under `ssh -tt` (src/host/ssh-member.ts). A leading `teamux` in COMMAND becomes
 * $TEAMUX_REMOTE_TEAMUX when set (the path of teamux on that machine); $TEAMUX_SSH_OPTIONS adds ssh
 * options (-i, -F, -o …). The exit code is the remote command's (255: ssh could not connect).
 */
import { splitCommand } from '../config/command-words.js';
import { parseTarget } from '../host/ssh.js';
import { runSshMember } from '../host/ssh-member.js';
import { parse, UsageError } from './context.js';
import type { Verb } from './verb.js';

const USAGE = 'ssh-member --host USER@MACHINE[:PORT] [--cwd DIR] [--env-keys NAME,NAME] -- COMMAND [ARGS…]';

/** Words of an environment variable holding a command line ([] when unset). */
function wordsOf(env: NodeJS.ProcessEnv, name: string): string[] {
  const value = env[name]?.trim();
  if (!value) return [];
  const w = splitCommand(value);
  if (!w.ok) throw new UsageError(`$${name}: ${w.message}`, w.hint ?? 'write it as plain words, quoted where needed');
  return w.words;
}

export const sshMemberVerb: Verb = {
  name: 'ssh-member',
  usage: [USAGE, 'env: TEAMUX_SSH_OPTIONS (extra ssh options), TEAMUX_REMOTE_TEAMUX (teamux on the other machine, default: teamux on its PATH)'],
  examples: ['teamux ssh-member --host dev@build-box -- teamux agent --as bob', 'TEAMUX_SSH_OPTIONS="-i ~/.ssh/team_ed25519" teamux ssh-member --host build-box:2222 -- make watch'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { host: { type: 'string' }, cwd: { type: 'string' }, 'env-keys': { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } }, USAGE);
    if (!values.host) throw new UsageError('--host is required', `usage: ${USAGE}`);
    const target = parseTarget(values.host);
    if (!target) throw new UsageError(`--host "${values.host}" is not user@machine[:port]`, 'e.g. --host dev@build-box or --host build-box:2222');
    if (positionals.length === 0) throw new UsageError('no command to run on the other machine', `usage: ${USAGE}`);
    const remoteTeamux = wordsOf(ctx.env, 'TEAMUX_REMOTE_TEAMUX');
    const command = positionals[0] === 'teamux' && remoteTeamux.length > 0 ? [...remoteTeamux, ...positionals.slice(1)] : positionals;
    const memberKeys = (values['env-keys'] ?? '').split(',').filter((k) => k && !/^TEAMUX_(SSH_OPTIONS|REMOTE_TEAMUX)$/.test(k));
    return runSshMember({
      target, sshOptions: wordsOf(ctx.env, 'TEAMUX_SSH_OPTIONS'), argv: command, cwd: values.cwd ?? '.', env: ctx.env, memberKeys,
    }, (line) => ctx.err(line));
  },
};
