/**
 * The Stop hook's fast path, loaded by bin/teamux before anything else: every idle Claude Code turn
 * runs it, so it imports nothing but node:fs, node:path and node:child_process (no zod, no store).
 * When the member's inbox has nothing past its cursor, it answers at once (no output: Claude stops)
 * and leaves the bookkeeping (activity idle, the result and idle_notification to the lead) to a
 * detached `teamux hook StopIdle` that does it through the store, under the same cursor lock the pane
 * wake takes. Anything else (unread bytes, an unexpected argv, no team) goes the full way.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** The stdin the fast path already read, for the full hook when it falls back. */
export let preReadStdin: string | undefined;

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function cursorOffset(file: string): number {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as { offset?: unknown };
    return typeof v.offset === 'number' ? v.offset : 0;
  } catch {
    return 0;
  }
}

function isMember(dir: string, member: string): boolean {
  try {
    const cfg = JSON.parse(readFileSync(path.join(dir, 'team.json'), 'utf8')) as { members?: Array<{ name?: unknown }> };
    return Array.isArray(cfg.members) && cfg.members.some((m) => m?.name === member);
  } catch {
    return false;
  }
}

function isJsonObject(text: string): boolean {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Handle `hook Stop --as NAME --team-dir DIR` (the exact argv teamux generates) when nothing is
 * unread; true when handled. `teamuxBin` is the launcher that runs the detached bookkeeping.
 */
export async function fastStop(argv: readonly string[], teamuxBin: string): Promise<boolean> {
  const [verb, event, asFlag, member, dirFlag, dir, ...rest] = argv;
  if (verb !== 'hook' || event !== 'Stop' || asFlag !== '--as' || dirFlag !== '--team-dir' || rest.length > 0) return false;
  if (!member || !NAME.test(member) || !dir || !path.isAbsolute(dir) || !isMember(dir, member)) return false;
  preReadStdin = await readAll(process.stdin);
  // Input that is not a JSON object is reported by the full hook.
  if (!isJsonObject(preReadStdin)) return false;
  const inboxes = path.join(dir, 'inboxes');
  // Bytes past the cursor may be a message: the full hook decides (and hands it over).
  if (sizeOf(path.join(inboxes, `${member}.jsonl`)) > cursorOffset(path.join(inboxes, `${member}.cursor.${member}.json`))) return false;
  const child = spawn(process.execPath, [teamuxBin, 'hook', 'StopIdle', '--as', member, '--team-dir', dir], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.on('error', () => undefined);
  await new Promise<void>((resolve) => child.stdin.end(preReadStdin, () => resolve()));
  child.unref();
  return true;
}
