/**
 * One multiplexer per team: `mux.json` in the team folder records the pid of the teamux process
 * that owns the screen. A second `teamux start` on a live team is refused with a hint; a stale
 * file (its pid gone) is taken over. A TUI is asked to let go (attach -d, detach, kill) with SIGHUP
 * and a note, `mux-detach.json`, saying why, which it prints once it has restored the terminal.
 */
import { promises as fsp, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { parseJson, readText, writeJson } from '../store/fsx.js';
import { pidAlive, processStartTime } from '../store/liveness.js';
import type { TeamStore } from '../store/team.js';
import { waitOnFolder } from '../store/watch.js';
import type { CliContext } from './context.js';

/** The owner record. */
export interface MuxRecord {
  pid: number;
  pidStart: number | null;
  backend: 'pty' | 'tmux';
  startedAt: string;
}

/** Path of the owner record. */
export function muxFile(store: TeamStore): string {
  return path.join(store.dir, 'mux.json');
}

/** Read the owner record if its process is alive. */
export async function liveMux(store: TeamStore): Promise<MuxRecord | null> {
  const text = await readText(muxFile(store), 'record');
  if (text === undefined) return null;
  const json = parseJson(muxFile(store), text);
  if (!json.ok) return null;
  const rec = json.value as MuxRecord;
  return typeof rec.pid === 'number' && pidAlive(rec.pid, rec.pidStart ?? null) && rec.pid !== process.pid ? rec : null;
}

/** Become the team's multiplexer, or say who already is. */
export async function claimMuxLock(store: TeamStore, backend: 'pty' | 'tmux'): Promise<{ ok: true; release: () => Promise<void> } | { ok: false; message: string; hint: string }> {
  const other = await liveMux(store);
  if (other) {
    return {
      ok: false,
      message: `team is already running in another teamux (pid ${other.pid}, ${other.backend} backend, since ${other.startedAt})`,
      hint: other.backend === 'tmux' ? 'take it over here with `teamux attach -d`, or let it go with `teamux detach`' : 'switch to that terminal, or quit it first',
    };
  }
  await writeJson(muxFile(store), { pid: process.pid, pidStart: processStartTime(process.pid), backend, startedAt: new Date().toISOString() } satisfies MuxRecord);
  return {
    ok: true,
    release: async () => {
      const text = await readText(muxFile(store), 'record');
      if (text && text.includes(`"pid": ${process.pid},`)) await fsp.rm(muxFile(store), { force: true });
    },
  };
}

/** The note a TUI asked to let go finds beside mux.json. */
interface DetachNote {
  pid: number;
  why: string;
  at: string;
}

function noteFile(store: TeamStore): string {
  return path.join(store.dir, 'mux-detach.json');
}

/** This process's terminal, for telling the other one who took over ("/dev/pts/3"), or null. */
export function ownTerminal(): string | null {
  try {
    const tty = readlinkSync('/proc/self/fd/0');
    return tty.startsWith('/dev/') ? tty : null;
  } catch {
    return null;
  }
}

/** Tell the TUI `other` why, send it SIGHUP, and wait until it has let go; false on timeout. */
export async function detachMux(store: TeamStore, other: MuxRecord, why: string, timeoutMs = 10_000): Promise<boolean> {
  await writeJson(noteFile(store), { pid: other.pid, why, at: new Date().toISOString() } satisfies DetachNote);
  try {
    process.kill(other.pid, 'SIGHUP');
  } catch {
    // Gone already.
  }
  // The TUI removes mux.json as it exits; a process that dies without doing so is seen by its pid.
  const gone = await waitOnFolder(store.dir, timeoutMs, async () => ((await liveMux(store))?.pid === other.pid ? undefined : true), { only: (n) => n === 'mux.json', everyMs: 100 });
  return gone === true;
}

/** Why this TUI was asked to let go (and forget the note), or null when nobody asked. */
export async function takeDetachNote(store: TeamStore): Promise<string | null> {
  const text = await readText(noteFile(store), 'record');
  if (text === undefined) return null;
  const json = parseJson(noteFile(store), text);
  const note = json.ok ? (json.value as Partial<DetachNote>) : null;
  if (note?.pid !== process.pid || typeof note.why !== 'string') return null;
  await fsp.rm(noteFile(store), { force: true });
  // Anyone who can write the team folder can write this note: no control sequences reach the terminal.
  return note.why.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, 200);
}

/** After the TUI has restored the terminal: say why it let go, when another command asked it to. */
export async function sayWhyDetached(ctx: CliContext, store: TeamStore): Promise<void> {
  const why = await takeDetachNote(store);
  if (why) ctx.out(`[detached: ${why}]`);
}
