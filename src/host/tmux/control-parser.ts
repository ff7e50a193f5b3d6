/**
 * The tmux control-mode wire format (`tmux -C`), decoded. tmux writes one line per notification and
 * wraps each command's reply in `%begin`/`%end` (or `%error`) guards carrying the same
 * `<time> <number> <flags>` triple; pane output arrives as `%output %<pane> <value>` where bytes below
 * 0x20 and the backslash are escaped as `\ooo` and every other byte (UTF-8 included, in 3.3a) is sent
 * raw. This parser owns only two pieces of state: the partial line left over from previous chunks
 * and the reply block being collected. It does no I/O, never throws on input, and reports lines it
 * cannot place as `garbage` events.
 */

/** One decoded control-mode line (or a whole reply block). */
export type ControlEvent =
  | {
      type: 'block';
      /** false for `%error`. */
      ok: boolean;
      time: number;
      number: number;
      /** 1 when the command came from this client's stdin, 0 otherwise (e.g. the argv command). */
      flags: number;
      lines: string[];
    }
  | { type: 'output'; paneId: string; data: Uint8Array }
  | { type: 'extended-output'; paneId: string; age: number; data: Uint8Array }
  | { type: 'layout-change'; windowId: string; layout: string; visibleLayout: string; windowFlags: string }
  | {
      type: 'window-add' | 'window-close' | 'unlinked-window-add' | 'unlinked-window-close' | 'unlinked-window-renamed';
      windowId: string;
    }
  | { type: 'window-renamed'; windowId: string; name: string }
  | { type: 'window-pane-changed'; windowId: string; paneId: string }
  | { type: 'session-changed'; sessionId: string; name: string }
  | { type: 'client-session-changed'; client: string; sessionId: string; name: string }
  | { type: 'session-renamed'; name: string }
  | { type: 'session-window-changed'; sessionId: string; windowId: string }
  | { type: 'sessions-changed' }
  | { type: 'client-detached'; client: string }
  | { type: 'pane-mode-changed' | 'pause' | 'continue'; paneId: string }
  | {
      type: 'subscription-changed';
      name: string;
      sessionId: string;
      windowId: string;
      windowIndex: string;
      paneId: string;
      value: string;
    }
  | { type: 'exit'; reason: string | undefined }
  /** A `%name ...` line this parser does not know; passed through untouched. */
  | { type: 'notification'; name: string; args: string }
  /** A line outside any block that is not a notification, or a malformed known one. */
  | { type: 'garbage'; line: string };

/** The reply block being collected between `%begin` and its matching `%end`/`%error`. */
interface OpenBlock {
  guard: string;
  time: number;
  number: number;
  flags: number;
  lines: string[];
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const OUTPUT_PREFIX = Buffer.from('%output ', 'latin1');
const EXTENDED_PREFIX = Buffer.from('%extended-output ', 'latin1');
const utf8 = new TextDecoder('utf-8');

/** Decodes tmux's `\ooo` escapes into bytes; a backslash not followed by three octal digits is kept. */
export function decodeOctal(bytes: Uint8Array, start = 0, end = bytes.length): Uint8Array {
  const out = new Uint8Array(end - start);
  let n = 0;
  let i = start;
  // Copy the runs between backslashes whole; most pane output has few escapes.
  while (i < end) {
    let slash = bytes.indexOf(BACKSLASH, i);
    if (slash < 0 || slash >= end) slash = end;
    if (slash > i) {
      out.set(bytes.subarray(i, slash), n);
      n += slash - i;
      i = slash;
    }
    if (i >= end) break;
    if (i + 3 < end && isOctal(bytes[i + 1]) && isOctal(bytes[i + 2]) && isOctal(bytes[i + 3])) {
      out[n++] = (((bytes[i + 1]! - 0x30) << 6) | ((bytes[i + 2]! - 0x30) << 3) | (bytes[i + 3]! - 0x30)) & 0xff;
      i += 4;
    } else {
      out[n++] = BACKSLASH;
      i += 1;
    }
  }
  return out.subarray(0, n);
}

function isOctal(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x37;
}

function startsWith(line: Uint8Array, prefix: Uint8Array): boolean {
  if (line.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
  return true;
}

/** Incremental control-mode parser: feed chunks split anywhere, get events in wire order. */
export class ControlParser {
  // pieces of the line not yet terminated by \n, kept as a list: joining them once, when the line
  // ends, keeps a long unterminated line linear in its length (re-joining per chunk was quadratic)
  private pending: Uint8Array[] = [];
  // reply block being collected, if any
  private block: OpenBlock | undefined;

  /** Consumes a chunk and returns the events of every line it completed. */
  feed(chunk: Uint8Array): ControlEvent[] {
    const events: ControlEvent[] = [];
    let start = 0;
    let nl = chunk.indexOf(NEWLINE);
    if (nl >= 0 && this.pending.length > 0) {
      // Only the new chunk is searched for the newline; the pending pieces are joined once.
      const line = Buffer.concat([...this.pending, chunk.subarray(0, nl)]);
      this.pending = [];
      this.complete(line, 0, line.length, events);
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    while (nl >= 0) {
      this.complete(chunk, start, nl, events);
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    // Copy the tail: `chunk` is the caller's buffer, which it is free to reuse.
    if (start < chunk.length) this.pending.push(Uint8Array.prototype.slice.call(chunk, start));
    return events;
  }

  /** Flushes an unterminated last line (the stream ended) and reports an unfinished block. */
  end(): ControlEvent[] {
    const events: ControlEvent[] = [];
    if (this.pending.length > 0) {
      const tail = Buffer.concat(this.pending);
      this.pending = [];
      events.push({ type: 'garbage', line: utf8.decode(tail) });
    }
    if (this.block) {
      events.push({ type: 'garbage', line: `%begin ${this.block.guard} (unterminated)` });
      this.block = undefined;
    }
    return events;
  }

  /** Handles the line `data[start, nl)`, without a CR before the newline. */
  private complete(data: Uint8Array, start: number, nl: number, events: ControlEvent[]): void {
    const end = nl > start && data[nl - 1] === CR ? nl - 1 : nl;
    this.line(data.subarray(start, end), events);
  }

  private line(bytes: Uint8Array, events: ControlEvent[]): void {
    if (this.block) {
      const text = utf8.decode(bytes);
      const closing = closingGuard(text);
      if (closing && closing.guard === this.block.guard) {
        const { time, number, flags, lines } = this.block;
        this.block = undefined;
        events.push({ type: 'block', ok: closing.ok, time, number, flags, lines });
      } else {
        this.block.lines.push(text);
      }
      return;
    }
    if (startsWith(bytes, OUTPUT_PREFIX)) {
      events.push(outputEvent(bytes) ?? { type: 'garbage', line: utf8.decode(bytes) });
      return;
    }
    if (startsWith(bytes, EXTENDED_PREFIX)) {
      events.push(extendedOutputEvent(bytes) ?? { type: 'garbage', line: utf8.decode(bytes) });
      return;
    }
    const text = utf8.decode(bytes);
    if (text.startsWith('%begin ')) {
      const guard = parseGuard(text.slice('%begin '.length));
      if (guard) {
        this.block = { ...guard, lines: [] };
        return;
      }
    }
    events.push(notificationEvent(text));
  }
}

function parseGuard(rest: string): Omit<OpenBlock, 'lines'> | undefined {
  const m = /^(\d+) (\d+) (\d+)$/.exec(rest);
  if (!m) return undefined;
  return { guard: rest, time: Number(m[1]), number: Number(m[2]), flags: Number(m[3]) };
}

function closingGuard(text: string): { ok: boolean; guard: string } | undefined {
  if (text.startsWith('%end ')) return { ok: true, guard: text.slice(5) };
  if (text.startsWith('%error ')) return { ok: false, guard: text.slice(7) };
  return undefined;
}

function outputEvent(bytes: Uint8Array): ControlEvent | undefined {
  const idStart = OUTPUT_PREFIX.length;
  const space = bytes.indexOf(0x20, idStart);
  if (space < 0 || bytes[idStart] !== 0x25 /* % */) return undefined;
  const paneId = Buffer.from(bytes.subarray(idStart, space)).toString('latin1');
  return { type: 'output', paneId, data: decodeOctal(bytes, space + 1) };
}

function extendedOutputEvent(bytes: Uint8Array): ControlEvent | undefined {
  // %extended-output %<pane> <age> [future args...] : <value>
  const sep = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(' : ', EXTENDED_PREFIX.length, 'latin1');
  if (sep < 0) return undefined;
  const head = Buffer.from(bytes.subarray(EXTENDED_PREFIX.length, sep)).toString('latin1').split(' ');
  const paneId = head[0] ?? '';
  const age = Number(head[1]);
  if (!paneId.startsWith('%') || !Number.isFinite(age)) return undefined;
  return { type: 'extended-output', paneId, age, data: decodeOctal(bytes, sep + 3) };
}

/** The first `count` space-separated words of `args` plus the remainder (which may hold spaces). */
function words(args: string, count: number): string[] | undefined {
  const parts = args.split(' ');
  if (parts.length < count || parts[0] === '') return undefined;
  return [...parts.slice(0, count), parts.slice(count).join(' ')];
}

function notificationEvent(text: string): ControlEvent {
  if (!text.startsWith('%')) return { type: 'garbage', line: text };
  const sp = text.indexOf(' ');
  const name = sp < 0 ? text.slice(1) : text.slice(1, sp);
  const args = sp < 0 ? '' : text.slice(sp + 1);
  const event = knownNotification(name, args);
  if (event === null) return { type: 'notification', name, args };
  return event ?? { type: 'garbage', line: text };
}

/** Returns null for unknown names and undefined for known names with malformed arguments. */
function knownNotification(name: string, args: string): ControlEvent | null | undefined {
  const one = (): string | undefined => (args !== '' && !args.includes(' ') ? args : undefined);
  switch (name) {
    case 'window-add':
    case 'window-close':
    case 'unlinked-window-add':
    case 'unlinked-window-close':
    case 'unlinked-window-renamed': {
      const windowId = one();
      return windowId ? { type: name, windowId } : undefined;
    }
    case 'pane-mode-changed':
    case 'pause':
    case 'continue': {
      const paneId = one();
      return paneId ? { type: name, paneId } : undefined;
    }
    case 'sessions-changed':
      return { type: 'sessions-changed' };
    case 'exit':
      return { type: 'exit', reason: args === '' ? undefined : args };
    case 'session-renamed':
      return { type: 'session-renamed', name: args };
    case 'client-detached':
      return args ? { type: 'client-detached', client: args } : undefined;
    case 'window-renamed': {
      const w = words(args, 1);
      return w ? { type: 'window-renamed', windowId: w[0]!, name: w[1]! } : undefined;
    }
    case 'session-changed': {
      const w = words(args, 1);
      return w ? { type: 'session-changed', sessionId: w[0]!, name: w[1]! } : undefined;
    }
    case 'client-session-changed': {
      const w = words(args, 2);
      return w ? { type: 'client-session-changed', client: w[0]!, sessionId: w[1]!, name: w[2]! } : undefined;
    }
    case 'session-window-changed': {
      const w = args.split(' ');
      return w.length === 2 ? { type: 'session-window-changed', sessionId: w[0]!, windowId: w[1]! } : undefined;
    }
    case 'window-pane-changed': {
      const w = args.split(' ');
      return w.length === 2 ? { type: 'window-pane-changed', windowId: w[0]!, paneId: w[1]! } : undefined;
    }
    case 'layout-change': {
      const w = args.split(' ');
      if (w.length < 2) return undefined;
      return {
        type: 'layout-change',
        windowId: w[0]!,
        layout: w[1]!,
        visibleLayout: w[2] ?? '',
        windowFlags: w.slice(3).join(' '),
      };
    }
    case 'subscription-changed': {
      // %subscription-changed <name> <$s> <@w> <idx> <%p> [future...] : <value>
      const sep = args.indexOf(' : ');
      if (sep < 0) return undefined;
      const head = args.slice(0, sep).split(' ');
      if (head.length < 5) return undefined;
      return {
        type: 'subscription-changed',
        name: head[0]!,
        sessionId: head[1]!,
        windowId: head[2]!,
        windowIndex: head[3]!,
        paneId: head[4]!,
        value: args.slice(sep + 3),
      };
    }
    default:
      return null;
  }
}
