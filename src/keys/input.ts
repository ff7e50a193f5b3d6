/**
 * The outer terminal's input, split into tokens: keys (with the exact bytes the terminal sent),
 * SGR mouse events and bracketed pastes. Incremental: a chunk may end in the middle of a sequence,
 * and a lone ESC is only a key once `flush()` is called after a short quiet time. In attach mode the
 * raw bytes of key tokens go to the focused pane untouched, so every key a terminal can send gets
 * through, including ones this file cannot name.
 */

/** One mouse event, with 0-based cell coordinates. */
export interface MouseEvent {
  kind: 'mouse';
  raw: string;
  /** Button code as in SGR mouse reports: low bits button, 32 motion, 64 wheel; 4/8/16 modifiers. */
  code: number;
  x: number;
  y: number;
  release: boolean;
}

/** Something the user did. */
export type InputToken =
  | { kind: 'key'; raw: string; name: string | null }
  | MouseEvent
  | { kind: 'paste'; text: string };

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const SGR_MOUSE = '\x1b[<';

const CSI_NAMES: Record<string, string> = {
  A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end', Z: 'S-tab', P: 'f1', Q: 'f2', R: 'f3', S: 'f4',
};
const TILDE_NAMES: Record<string, string> = {
  '1': 'home', '2': 'insert', '3': 'delete', '4': 'end', '5': 'pageup', '6': 'pagedown', '7': 'home', '8': 'end',
  '11': 'f1', '12': 'f2', '13': 'f3', '14': 'f4', '15': 'f5', '17': 'f6', '18': 'f7', '19': 'f8', '20': 'f9', '21': 'f10', '23': 'f11', '24': 'f12',
};

/** Name a single key's bytes (`C-a`, `M-x`, `up`, `f5`, `?`), or null when it has no name here. */
export function keyName(raw: string): string | null {
  if (raw.length === 1) {
    const c = raw.charCodeAt(0);
    if (c === 0) return 'C-space';
    if (c === 9) return 'tab';
    if (c === 13 || c === 10) return 'enter';
    if (c === 27) return 'escape';
    if (c === 127 || c === 8) return 'backspace';
    if (c === 32) return 'space';
    if (c < 32) return `C-${String.fromCharCode(c + 96)}`;
    return raw;
  }
  if (raw[0] === '\x1b' && raw.length === 2) {
    const inner = keyName(raw[1]!);
    return inner ? `M-${inner}` : null;
  }
  const ss3 = /^\x1bO([A-DHFPQRS])$/.exec(raw);
  if (ss3) return CSI_NAMES[ss3[1]!] ?? null;
  const csi = /^\x1b\[(?:1;(\d+))?([A-DHFZPQRS])$/.exec(raw);
  if (csi) return withMods(CSI_NAMES[csi[2]!] ?? null, csi[1]);
  const tilde = /^\x1b\[(\d+)(?:;(\d+))?~$/.exec(raw);
  if (tilde) return withMods(TILDE_NAMES[tilde[1]!] ?? null, tilde[2]);
  return [...raw].length === 1 ? raw : null;
}

function withMods(name: string | null, mod: string | undefined): string | null {
  if (!name || !mod) return name;
  const m = Number(mod) - 1;
  return `${m & 4 ? 'C-' : ''}${m & 2 ? 'M-' : ''}${m & 1 ? 'S-' : ''}${name}`;
}

/** An incremental tokenizer for one input stream. */
export class InputTokenizer {
  private pending = '';
  private pasting: string | null = null;

  /** Feed a chunk; returns the complete tokens in it. */
  feed(chunk: string): InputToken[] {
    this.pending += chunk;
    const out: InputToken[] = [];
    for (;;) {
      if (this.pasting !== null) {
        const end = this.pending.indexOf(PASTE_END);
        if (end < 0) {
          // Keep a tail that might be the start of the end marker.
          const keep = Math.min(this.pending.length, PASTE_END.length - 1);
          this.pasting += this.pending.slice(0, this.pending.length - keep);
          this.pending = this.pending.slice(this.pending.length - keep);
          return out;
        }
        out.push({ kind: 'paste', text: this.pasting + this.pending.slice(0, end) });
        this.pasting = null;
        this.pending = this.pending.slice(end + PASTE_END.length);
        continue;
      }
      if (this.pending === '') return out;
      const n = this.nextLength();
      if (n === 0) return out; // incomplete sequence: wait for more (or flush)
      const raw = this.pending.slice(0, n);
      this.pending = this.pending.slice(n);
      if (raw === PASTE_START) {
        this.pasting = '';
        continue;
      }
      // only an SGR mouse report starts with CSI <: a key is not matched against its pattern
      const mouse = raw.startsWith(SGR_MOUSE) ? /^\x1b\[<(\d+);(\d+);(\d+)([Mm])$/.exec(raw) : null;
      if (mouse) {
        out.push({ kind: 'mouse', raw, code: Number(mouse[1]), x: Number(mouse[2]) - 1, y: Number(mouse[3]) - 1, release: mouse[4] === 'm' });
        continue;
      }
      out.push({ kind: 'key', raw, name: keyName(raw) });
    }
  }

  /** After a quiet time, whatever is pending (a lone ESC, a cut-off sequence) becomes keys. */
  flush(): InputToken[] {
    if (this.pasting !== null) return [];
    const raw = this.pending;
    this.pending = '';
    if (raw === '') return [];
    if (raw.length === 2 && raw[0] === '\x1b') return [{ kind: 'key', raw, name: keyName(raw) }];
    return [...raw].map((ch) => ({ kind: 'key' as const, raw: ch, name: keyName(ch) }));
  }

  /** True when nothing is in progress: no sequence waiting for its rest, no paste being collected. */
  get idle(): boolean {
    return this.pending === '' && this.pasting === null;
  }

  /** True when bytes are waiting for the rest of a sequence. */
  get hasPending(): boolean {
    return this.pending !== '' && this.pasting === null;
  }

  /** Length of the first token in `pending`, or 0 if it is not complete yet. */
  private nextLength(): number {
    const s = this.pending;
    if (s[0] !== '\x1b') {
      const cp = s.codePointAt(0)!;
      return cp > 0xffff ? 2 : 1;
    }
    if (s.length < 2) return 0;
    const second = s[1]!;
    if (second === '[') {
      // CSI: parameters and intermediates, then a final byte in 0x40..0x7e.
      for (let i = 2; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x40 && c <= 0x7e && !(i === 2 && (s[i] === '<' || s[i] === '?'))) return i + 1;
        if (c < 0x20) return i; // broken sequence: emit what we have
      }
      return 0;
    }
    if (second === 'O') return s.length < 3 ? 0 : 3;
    if (second === '\x1b') return 1;
    // Alt + character (one code point).
    const cp = s.codePointAt(1)!;
    return cp > 0xffff ? 3 : 2;
  }
}
