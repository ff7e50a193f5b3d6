/**
 * A member's sandbox: bubblewrap (`bwrap`) around the member's command, so a teammate's model with a
 * shell cannot write outside what it was given, see other members' processes, or rewrite what teamux
 * runs for it (issue 26; docs/security.md). What the member sees:
 * - the whole filesystem read-only (`--ro-bind / /`), no capabilities (`--cap-drop ALL`, which also
 *   takes away root's power to ignore file modes and to remount), its own pid namespace with its own
 *   /proc (no other member's process, environ or memory is visible), and a private /tmp;
 * - writable: its working folder, the team folder (the protocol's files; see docs/security.md for
 *   what a broker would add) and its agent CLI's own config home;
 * - read-only again on top of those: teamux's own installation and the exec folder (hooks, stand-in);
 * - hidden (an empty tmpfs): the trust folder (except for the lead, which enrols there) and the
 *   other members' Claude Code folders (their HOMEs and settings).
 * `bwrapArgs` is pure; `probeSandbox` runs bwrap once to see that the system allows it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** What one member's sandbox is made of (absolute paths). */
export interface SandboxSpec {
  /** Writable, in this order (later ones may lie inside earlier ones). */
  writable: string[];
  /** Read-only on top of everything writable (teamux itself, the exec folder). */
  readOnly: string[];
  /** Existing folders replaced by an empty one. */
  hidden: string[];
  /** Unix sockets outside every writable folder that the member must reach (bound read-only: connect still works). */
  sockets: string[];
  cwd: string;
}

/** The bwrap argv before `--` and the member's command. */
export function bwrapArgs(spec: SandboxSpec): string[] {
  const args = ['--die-with-parent', '--unshare-pid', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const s of spec.sockets) args.push('--ro-bind-try', s, s);
  for (const w of spec.writable) args.push('--bind-try', w, w);
  for (const h of spec.hidden) args.push('--tmpfs', h);
  for (const r of spec.readOnly) args.push('--ro-bind-try', r, r);
  args.push('--chdir', spec.cwd);
  return args;
}

/** Whether members can be sandboxed here: bwrap's path, or why not and what to do. */
export type SandboxProbe = { ok: true; bwrap: string } | { ok: false; why: string; hint: string };

let probed: SandboxProbe | null = null;

/** Run bwrap once (cached) with the sandbox's namespaces; a failure says why and how to fix it. */
export function probeSandbox(pathEnv = process.env.PATH ?? '/usr/bin:/bin'): SandboxProbe {
  if (probed) return probed;
  const bwrap = [...pathEnv.split(path.delimiter), '/usr/bin', '/bin'].map((d) => path.join(d, 'bwrap')).find((f) => path.isAbsolute(f) && existsSync(f));
  if (!bwrap) {
    probed = { ok: false, why: 'bubblewrap (bwrap) is not installed', hint: 'install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or set sandbox: false in the layout to run members unsandboxed' };
    return probed;
  }
  try {
    execFileSync(bwrap, ['--die-with-parent', '--unshare-pid', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--proc', '/proc', '--', '/bin/true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
    probed = { ok: true, bwrap };
  } catch (err) {
    const said = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim().split('\n')[0];
    probed = { ok: false, why: `bubblewrap cannot make a sandbox here (${said})`, hint: 'the kernel must allow user namespaces (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces > 0), or bwrap must be setuid; otherwise set sandbox: false in the layout' };
  }
  return probed;
}
