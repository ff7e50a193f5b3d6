/**
 * The folder of what teamux executes on a member's behalf (TeamPaths.exec, outside the team folder):
 * the Claude Code hooks' Perl scripts and the tmux stand-in. Only the screen writes it, before any
 * member starts: scripts get mode 0500 and the folders 0500 once written, each script's sha256 is
 * returned so that whoever runs it can check it first (claude/exec-check.ts), and a sandbox binds the
 * folder read-only (host/sandbox.ts). Modes alone stop nobody running as the same user (root least
 * of all); the digest check and the sandbox are what count.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { atomicWrite } from './fsx.js';

/** A script written into the exec folder: where it is and the digest of what was written. */
export interface ExecScript {
  file: string;
  sha256: string;
}

/** The hex sha256 of a script's text (UTF-8). */
export function scriptDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Write `script` at `file` (under the exec folder `root`), mode 0500, and seal the folders again. */
export async function writeExecScript(root: string, file: string, script: string): Promise<ExecScript> {
  unseal(root, path.dirname(file));
  try {
    await atomicWrite(file, script);
    chmodSync(file, 0o500);
  } finally {
    seal(root);
  }
  return { file, sha256: scriptDigest(script) };
}

/** Make `root` and `dir` (inside it) exist and writable by their owner, for a write. */
function unseal(root: string, dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let d = dir; d.startsWith(root); d = path.dirname(d)) {
    chmodSync(d, 0o700);
    if (d === root) break;
  }
}

/** Every folder under `root` (and itself) back to 0500. */
function seal(root: string): void {
  for (const name of readdirSync(root)) {
    const p = path.join(root, name);
    if (statSync(p).isDirectory()) seal(p);
  }
  chmodSync(root, 0o500);
}
