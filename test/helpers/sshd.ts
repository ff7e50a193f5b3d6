// A private sshd for tests: on 127.0.0.1 and a free port, with a generated host key and a throwaway
// client key authorised for the current user, all in a temporary folder, and an ssh config file that
// names it `teamux-test-box`. sshd insists on its privilege separation folder (/run/sshd); it is
// created when missing (CI runs as root). `start()` rejects with sshd's own words when it cannot run.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import * as path from 'node:path';
import { freePort } from './nats.js';
import { tempDir, waitFor } from './team.js';

export const SSHD = process.env.SSHD_BIN ?? '/usr/sbin/sshd';

/** A running sshd and the ssh config that reaches it as host `teamux-test-box`. */
export interface TestSshd {
  host: string;
  port: number;
  /** Pass as TEAMUX_SSH_OPTIONS (or ssh's own -F). */
  config: string;
  dir: string;
  stop(): Promise<void>;
}

/** Start a private sshd; the caller stops it. */
export async function startSshd(): Promise<TestSshd> {
  const tmp = tempDir('teamux-sshd-');
  const dir = tmp.dir;
  const port = await freePort();
  const key = (name: string): void => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `teamux-test-${name}`, '-f', path.join(dir, name)]);
  };
  key('host_key');
  key('client_key');
  execFileSync('cp', [path.join(dir, 'client_key.pub'), path.join(dir, 'authorized_keys')]);
  writeFileSync(path.join(dir, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${dir}/host_key`, `AuthorizedKeysFile ${dir}/authorized_keys`, `PidFile ${dir}/sshd.pid`,
    'UsePAM no', 'StrictModes no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password', 'PermitUserEnvironment no', '',
  ].join('\n'));
  const config = path.join(dir, 'ssh_config');
  writeFileSync(config, [
    'Host teamux-test-box', '  HostName 127.0.0.1', `  Port ${port}`, `  User ${userInfo().username}`, `  IdentityFile ${dir}/client_key`, '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${dir}/known_hosts`, '  StrictHostKeyChecking accept-new', '  LogLevel ERROR', '',
  ].join('\n'));
  try {
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  } catch {
    // Not root: sshd says what it misses below.
  }
  let log = '';
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  await waitFor(() => /Server listening/.test(log) || child.exitCode !== null, 'sshd to listen', 20_000);
  if (child.exitCode !== null) {
    await tmp.cleanup();
    throw new Error(`sshd could not run: ${log.trim()}`);
  }
  return {
    host: 'teamux-test-box', port, config, dir,
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      await tmp.cleanup();
    },
  };
}
