/**
 * A permission Claude Code asks for can be answered in two places: on the screen (C-a a / C-a r,
 * through the request file the PermissionRequest hook waits on) or in Claude Code's own dialog in
 * the member's pane, which does not wait for the hook. An answer in the dialog leaves its trace in
 * the session's transcript: the tool call the dialog was about gets its tool_result (the tool ran,
 * or the refusal). `answeredInTranscript` is the pure test on the transcript's text;
 * `waitAnsweredInPane` waits for it on a watch of the transcript's folder, so the hook can withdraw
 * the request the sidebar shows and exit instead of waiting out permission_timeout.
 *
 * Another agent CLI plugs its own wait of the same shape into the hook's permission wait
 * (`AnsweredElsewhere` in hook-run.ts): a promise of the reason, or null when it saw nothing.
 */
import { open, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { waitOnFolder } from '../../store/watch.js';

/** How much of the transcript before the hook started is read: the tool call was written just before. */
const TRANSCRIPT_TAIL = 1024 * 1024;

type Block = { type?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string };

/** The same JSON value, whatever the order of object keys. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

function blocksOf(line: string): Block[] {
  try {
    const entry = JSON.parse(line) as { message?: { content?: unknown } };
    const content = entry?.message?.content;
    return Array.isArray(content) ? (content as Block[]) : [];
  } catch {
    return [];
  }
}

/** Does the transcript text show the newest call of `tool` with `input` answered (a tool_result for it)? */
export function answeredInTranscript(text: string, tool: string, input: unknown): boolean {
  const want = canonical(input);
  let id: string | undefined;
  const results = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.includes('"tool_')) continue;
    for (const b of blocksOf(line)) {
      if (b.type === 'tool_use' && b.name === tool && b.id && canonical(b.input) === want) id = b.id;
      else if (b.type === 'tool_result' && b.tool_use_id) results.add(b.tool_use_id);
    }
  }
  return id !== undefined && results.has(id);
}

/** Wait until the transcript shows the call answered in the pane; false on timeout or abort. */
export async function waitAnsweredInPane(transcript: string, tool: string, input: unknown, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  const from = Math.max(0, ((await stat(transcript).catch(() => null))?.size ?? 0) - TRANSCRIPT_TAIL);
  const read = async (): Promise<string> => {
    const f = await open(transcript, 'r').catch(() => null);
    if (!f) return '';
    try {
      const { size } = await f.stat();
      const buf = Buffer.alloc(Math.max(0, size - from));
      await f.read(buf, 0, buf.length, from);
      return buf.toString('utf8');
    } finally {
      await f.close();
    }
  };
  const name = path.basename(transcript);
  const seen = await waitOnFolder(path.dirname(transcript), timeoutMs, async () => (answeredInTranscript(await read(), tool, input) ? true : undefined), { only: (f) => f === name, signal });
  return seen === true;
}
