/**
 * `--web[=PORT]` on start and attach: turn the web view on (at the layout's `web:` settings, else port
 * 7777 on 127.0.0.1), or on another port. Taken out of argv before the other options are parsed, since
 * its value is optional.
 */
import type { WebSettings } from '../app/web-view.js';
import type { NormalizedLayout } from '../config/normalize.js';
import { visible } from '../protocol/visible.js';
import { UsageError } from './context.js';

/** The web view's defaults when neither the layout nor the flag says. */
export const WEB_DEFAULTS = { port: 7777, listen: '127.0.0.1' } as const;

/** argv without `--web[=PORT]`, and what it asked: a port, `on` (the layout's or the default), or nothing. */
export function takeWebFlag(argv: readonly string[]): { argv: string[]; web: number | 'on' | null } {
  let web: number | 'on' | null = null;
  const rest: string[] = [];
  for (const a of argv) {
    if (a === '--web') web = 'on';
    else if (a.startsWith('--web=')) {
      const v = a.slice('--web='.length);
      if (!/^(0|[1-9][0-9]{0,4})$/.test(v) || Number(v) > 65535) throw new UsageError(`--web=${visible(v)}: not a port`, 'give a port from 1 to 65535, e.g. --web=7777, 0 for any free one (or --web for the layout\'s web: settings)');
      web = Number(v);
    } else rest.push(a);
  }
  return { argv: rest, web };
}

/** The web view's settings for this screen: the layout's, switched on or moved by the flag; null: off. */
export function webSettingsOf(layout: NormalizedLayout, flag: number | 'on' | null): WebSettings | null {
  if (flag === null) return layout.web;
  const base = layout.web ?? { ...WEB_DEFAULTS, tls: null };
  return flag === 'on' ? base : { ...base, port: flag };
}
