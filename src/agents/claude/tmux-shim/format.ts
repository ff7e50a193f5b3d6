/**
 * tmux format strings (`#{pane_id}`, `#{session_name}:#{window_id}.#{pane_id}`) expanded against
 * the values the stand-in knows. As in tmux, a variable it does not know expands to nothing; the
 * stand-in reports such names so they can be logged. Constructs it does not implement (conditionals
 * `#{?…}`, modifiers `#{=5:…}`, `#(shell)`) are refused rather than answered wrongly. Pure.
 */

/** The expansion, and the variable names that were not known (expanded to ''). */
export type Expanded = { ok: true; text: string; unknown: string[] } | { ok: false; error: string };

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Expand `fmt` with `vars` (a variable's value is looked up by its exact name). */
export function expandFormat(fmt: string, vars: (name: string) => string | undefined): Expanded {
  let out = '';
  const unknown: string[] = [];
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i]!;
    if (c !== '#') {
      out += c;
      continue;
    }
    const next = fmt[i + 1];
    if (next === '#') {
      out += '#';
      i++;
    } else if (next === '{') {
      const end = fmt.indexOf('}', i + 2);
      if (end < 0) return { ok: false, error: `format: unterminated #{ in "${fmt}"` };
      const name = fmt.slice(i + 2, end);
      if (!VARIABLE.test(name)) return { ok: false, error: `format: #{${name}} is not supported by teamux's tmux stand-in (only plain #{variable} names)` };
      const v = vars(name);
      if (v === undefined) unknown.push(name);
      out += v ?? '';
      i = end;
    } else if (next === '(') {
      return { ok: false, error: `format: #( shell commands are not supported by teamux's tmux stand-in` };
    } else {
      // #[style] and other single-character forms pass through, as tmux prints them with -p.
      out += c;
    }
  }
  return { ok: true, text: out, unknown };
}
