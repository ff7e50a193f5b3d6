/**
 * Member processes for the multi-process agent tests: `teamux agent …` run as a real child process
 * (bin/teamux), its pane output kept for failure messages, killed after the test if it is still running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, cliProcess } from '../helpers/team.js';
import { later } from './helpers.js';

/** True when `teamux --help` lists the agent verb. */
export async function agentVerbRegistered(): Promise<boolean> {
  return /^ {2}agent /m.test((await cliProcess(['--help'])).out);
}

/** The script to run as `teamux`. */
export async function teamuxBin(): Promise<string> {
  return BIN;
}

/** One child process with its output. */
export interface MemberProcess {
  name: string;
  child: ChildProcess;
  out: string;
  exit: Promise<number | null>;
}

/** Start `node bin args…` with stdin closed; it is killed after the test if still running. */
export function startMember(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, name = args.join(' ')): MemberProcess {
  const child = spawn(process.execPath, [bin, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const m: MemberProcess = { name, child, out: '', exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
  child.stdout!.on('data', (b: Buffer) => (m.out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (m.out += b.toString()));
  later(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return m;
}

/** The exit code, or an error carrying the end of the process's output after `timeoutMs`. */
export async function exited(m: MemberProcess, timeoutMs: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const r = await Promise.race([m.exit, timeout]);
  clearTimeout(timer);
  if (r === 'timeout') throw new Error(`${m.name} did not exit within ${timeoutMs} ms; its output:\n${m.out.slice(-3000)}`);
  return r;
}
