/**
 * From a member's launch to the same launch inside its sandbox (host/sandbox.ts): which folders it may
 * write, what is shown read-only on top, what is hidden, which sockets outside the team folder it
 * must reach. A member whose layout turns the sandbox off, a member on another machine and (for now)
 * a Claude Code member run as they are; `teamux start` refuses to start sandboxed members on a system
 * where bubblewrap cannot make a sandbox, saying how to install it.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { NormalizedLayout, NormalizedMember } from '../config/index.js';
import type { MemberLaunch } from '../app/multiplexer.js';
import { bwrapArgs, probeSandbox, type SandboxSpec } from '../host/sandbox.js';
import { TeamPaths } from '../store/paths.js';
import { UsageError } from './context.js';

/** True when teamux runs this member in a sandbox. */
export function runsSandboxed(m: NormalizedMember): boolean {
  return m.sandbox && !m.claude && !m.host && !m.remote;
}

/** Fail (with the install command) when the layout asks for sandboxed members and the system cannot make one. */
export function requireSandbox(layout: NormalizedLayout, layoutFile: string): void {
  const asking = [layout.lead, ...layout.teammates].filter(runsSandboxed);
  if (asking.length === 0) return;
  const probe = probeSandbox();
  if (!probe.ok) throw new UsageError(`${layoutFile}: ${asking.map((m) => m.name).join(', ')} should run sandboxed, but ${probe.why}`, probe.hint);
}

/** The folders of teamux's own installation that members must not write (its root, unless a member works inside it). */
function teamuxFolders(teamuxRoot: string, cwd: string): string[] {
  const inside = cwd === teamuxRoot || cwd.startsWith(`${teamuxRoot}${path.sep}`);
  return inside ? ['bin', 'dist', 'build', 'node_modules', 'native', 'src'].map((d) => path.join(teamuxRoot, d)) : [teamuxRoot];
}

/** What member `m`'s sandbox is made of. */
export function sandboxSpecOf(m: NormalizedMember, layout: NormalizedLayout, teamDir: string, teamuxRoot: string, sockets: string[]): SandboxSpec {
  const paths = new TeamPaths(teamDir);
  const others = [layout.lead, ...layout.teammates].filter((o) => o.name !== m.name).map((o) => paths.claudeMember(o.name));
  return {
    writable: [m.cwd, teamDir],
    readOnly: [...teamuxFolders(teamuxRoot, m.cwd), paths.exec],
    // tmpfs needs its mount point: only folders that exist are hidden (the others hold nothing yet).
    hidden: [...(m.isLead ? [] : [paths.trust]), ...others].filter((d) => existsSync(d)),
    sockets: sockets.filter((s) => !s.startsWith(`${teamDir}${path.sep}`)),
    cwd: m.cwd,
  };
}

/** `launch` run inside bwrap with `spec` (TEAMUX_SANDBOX=1 tells teamux's own processes they are inside). */
export function sandboxedLaunch(launch: MemberLaunch, spec: SandboxSpec): MemberLaunch {
  const probe = probeSandbox();
  if (!probe.ok) return launch;
  return { ...launch, command: probe.bwrap, args: [...bwrapArgs(spec), '--', launch.command, ...launch.args], env: { ...launch.env, TEAMUX_SANDBOX: '1' } };
}
