// The ssh builders of a remote member (src/host/ssh.ts): the exact argv of both ssh calls, the host
// forms, quoting that survives a real POSIX shell, and the staged file being read, removed and never
// shown. The shell text is run with the real /bin/sh here, as the remote login shell would run it.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envFileText, isStagedPath, parseTarget, runCommand, shellQuote, shippedEnv, sshArgv, stageCommand } from '../../src/host/ssh.js';
import { remoteEnv } from '../../src/host/ssh-member.js';
import { tempDir } from '../helpers/team.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('ssh builders', () => {
  it('ssh.targets-parse-user-host-and-port-and-refuse-the-rest', () => {
    expect(parseTarget('dev@build-box.lan:2222')).toEqual({ user: 'dev', host: 'build-box.lan', port: 2222 });
    expect(parseTarget('box')).toEqual({ user: null, host: 'box', port: null });
    for (const bad of ['dev@box; rm -rf ~', '-oProxyCommand=x', 'box:99999', 'a@b@c', '']) expect(parseTarget(bad), bad).toBeNull();
  });

  it('ssh.argv-of-the-stage-and-run-calls', () => {
    const t = parseTarget('dev@box:2222')!;
    expect(sshArgv(t, ['-F', '/cfg'], false, 'REMOTE')).toEqual(['ssh', '-F', '/cfg', '-T', '-o', 'BatchMode=yes', '-p', '2222', 'dev@box', 'REMOTE']);
    expect(sshArgv(parseTarget('box')!, [], true, 'REMOTE')).toEqual(['ssh', '-tt', 'box', 'REMOTE']);
  });

  it('ssh.stage-then-run-through-a-real-shell-sources-removes-and-execs', async () => {
    const tmp = tempDir('teamux-ssh-unit-');
    cleanups.push(tmp.cleanup);
    const secret = `it's "a" $secret\`x\` \\ value\nline two`;
    const text = envFileText({ TEAMUX_NATS_PASSWORD: secret, TEAMUX_TEAM: 'demo', 'BAD-NAME': 'dropped' });
    expect(text).not.toContain('BAD-NAME');
    const staged = execFileSync('sh', ['-c', stageCommand()], { input: text, env: { ...process.env, TMPDIR: tmp.dir } }).toString().trim();
    expect(isStagedPath(staged)).toBe(true);
    expect(path.dirname(staged)).toBe(tmp.dir);
    // Only the owner may read it.
    expect(execFileSync('stat', ['-c', '%a', staged]).toString().trim()).toBe('600');
    const out = execFileSync('sh', ['-c', runCommand(staged, tmp.dir, ['sh', '-c', 'printf "%s|%s|%s" "$TEAMUX_NATS_PASSWORD" "$TEAMUX_TEAM" "$(pwd)"'])]).toString();
    expect(out).toBe(`${secret}|demo|${tmp.dir}`);
    expect(existsSync(staged)).toBe(false);
    // The command text names the file, never what is in it.
    expect(runCommand(staged, tmp.dir, ['teamux', 'agent'])).not.toContain('secret');
  });

  it('ssh.a-missing-folder-runs-in-home-and-says-so', async () => {
    const tmp = tempDir('teamux-ssh-unit-');
    cleanups.push(tmp.cleanup);
    const staged = path.join(tmp.dir, 'teamux-env.ABCDEFGH');
    writeFileSync(staged, envFileText({ X: '1' }));
    const r = execFileSync('sh', ['-c', `${runCommand(staged, '/no/such/folder', ['sh', '-c', 'pwd'])} 2>&1`], { env: { ...process.env, HOME: tmp.dir } }).toString();
    expect(r).toContain('teamux: /no/such/folder does not exist on');
    expect(r.trim().endsWith(tmp.dir)).toBe(true);
  });

  it('ssh.shipped-env-is-the-allowlist-and-the-member-keys-with-file-secrets-as-values', async () => {
    const tmp = tempDir('teamux-ssh-unit-');
    cleanups.push(tmp.cleanup);
    const pw = path.join(tmp.dir, 'pw');
    writeFileSync(pw, 'hunter2\n');
    const env = { TEAMUX_STORE: 'nats://h:4222', TEAMUX_TEAM: 't', HOME: '/home/me', PATH: '/bin', ANTHROPIC_API_KEY: 'sk-x', MY_VAR: 'v', TEAMUX_NATS_PASSWORD_FILE: pw };
    expect(shippedEnv(env, ['MY_VAR'])).toEqual({ TEAMUX_STORE: 'nats://h:4222', TEAMUX_TEAM: 't', MY_VAR: 'v' });
    const r = remoteEnv({ env, memberKeys: ['MY_VAR'] });
    expect(r).toEqual({ ok: true, env: { TEAMUX_STORE: 'nats://h:4222', TEAMUX_TEAM: 't', MY_VAR: 'v', TEAMUX_NATS_PASSWORD: 'hunter2' } });
    const missing = remoteEnv({ env: { TEAMUX_NATS_CREDS: path.join(tmp.dir, 'none.creds') }, memberKeys: [] });
    expect(missing.ok).toBe(false);
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });
});
