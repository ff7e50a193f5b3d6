/**
 * The tmux options the stand-in knows: each option's scope, whether it is a flag (shown as on/off,
 * expanded in formats as 1/0) and its default as tmux 3.3a has it. The values set with set-option
 * live in an `OptionStore` keyed by scope (global, a window, a pane); lookups fall back pane →
 * window → global → default, as tmux's own option tree does. Pure data; the set values are kept
 * by whoever owns the store (the bridge, for as long as teamux runs).
 */

/** Where an option lives. */
export type OptionScope = 'server' | 'session' | 'window' | 'pane';

interface OptionDef {
  scope: OptionScope;
  flag: boolean;
  default: string;
}

const OPTIONS: Record<string, OptionDef> = {
  'focus-events': { scope: 'server', flag: true, default: 'off' },
  'extended-keys': { scope: 'server', flag: false, default: 'off' },
  'escape-time': { scope: 'server', flag: false, default: '500' },
  'set-clipboard': { scope: 'server', flag: false, default: 'external' },
  'default-terminal': { scope: 'server', flag: false, default: 'tmux-256color' },
  status: { scope: 'session', flag: false, default: 'on' },
  'status-position': { scope: 'session', flag: false, default: 'bottom' },
  mouse: { scope: 'session', flag: true, default: 'off' },
  'base-index': { scope: 'session', flag: false, default: '0' },
  'pane-base-index': { scope: 'window', flag: false, default: '0' },
  'pane-border-status': { scope: 'window', flag: false, default: 'off' },
  'pane-border-format': { scope: 'window', flag: false, default: '#{?pane_active,#[reverse],}#{pane_index}#[default] "#{pane_title}"' },
  'pane-border-style': { scope: 'window', flag: false, default: 'default' },
  'pane-active-border-style': { scope: 'window', flag: false, default: '#{?pane_in_mode,fg=yellow,#{?synchronize-panes,fg=red,fg=green}}' },
  'pane-border-lines': { scope: 'window', flag: false, default: 'single' },
  'synchronize-panes': { scope: 'window', flag: true, default: 'off' },
  'allow-passthrough': { scope: 'pane', flag: true, default: 'off' },
  'remain-on-exit': { scope: 'pane', flag: false, default: 'off' },
  'window-style': { scope: 'pane', flag: false, default: 'default' },
  'window-active-style': { scope: 'pane', flag: false, default: 'default' },
};

/** True when the stand-in knows the option. */
export function knownOption(name: string): boolean {
  return Object.hasOwn(OPTIONS, name);
}

/** The option names the stand-in knows (for the docs' compatibility table). */
export const OPTION_NAMES = Object.keys(OPTIONS);

/** Option values set with set-option, by scope key: 'g', 'w:@0', 'p:%1'. */
export class OptionStore {
  private readonly values = new Map<string, Map<string, string>>();

  /** Set (or, with `value` undefined, unset) an option in one scope. */
  set(scopeKey: string, name: string, value: string | undefined): void {
    const m = this.values.get(scopeKey) ?? new Map<string, string>();
    if (value === undefined) m.delete(name);
    else m.set(name, value);
    this.values.set(scopeKey, m);
  }

  /** The value seen from a pane in a window (pane → window → global → default), as show-options prints it. */
  get(name: string, pane: string | null, window: string | null): string | undefined {
    const def = OPTIONS[name];
    if (!def) return undefined;
    for (const key of [pane ? `p:${pane}` : null, window ? `w:${window}` : null, 'g']) {
      const v = key ? this.values.get(key)?.get(name) : undefined;
      if (v !== undefined) return v;
    }
    return def.default;
  }

  /** The value as a format variable expands it (flags are 1/0). */
  formatValue(name: string, pane: string | null, window: string | null): string | undefined {
    const v = this.get(name, pane, window);
    if (v === undefined) return undefined;
    return OPTIONS[name]!.flag ? (v === 'on' ? '1' : '0') : v;
  }

  /** Forget every value set for a pane (it closed). */
  dropPane(pane: string): void {
    this.values.delete(`p:${pane}`);
  }
}

/** The value to store for a flag option: `set -g mouse` alone toggles it on, on/off/yes/no/1/0 are accepted. */
export function normalizeValue(name: string, value: string | undefined): { ok: true; value: string } | { ok: false; error: string } {
  const def = OPTIONS[name]!;
  if (!def.flag) return value === undefined ? { ok: false, error: `empty value` } : { ok: true, value };
  if (value === undefined) return { ok: true, value: 'on' };
  if (['on', 'yes', '1'].includes(value)) return { ok: true, value: 'on' };
  if (['off', 'no', '0'].includes(value)) return { ok: true, value: 'off' };
  return { ok: false, error: `bad value: ${value}` };
}
