/**
 * The screen's side of the lead verify keys when the tmux stand-in's bridge runs as a process of its
 * own (tmux backend): the keys live in that process's memory (never in the team folder, where a
 * teammate could swap one), and the screen asks for the one it lacks over the stand-in's socket with
 * the teamux-only command `teamux-verify-key NAME`. It owns a cache of the keys it got and when it
 * last asked for each missing one; a lookup never waits: a miss asks in the background, and the
 * sidebar's next read (it re-checks unverified messages) finds the key.
 */
import { connect } from 'node:net';
import type { KeyObject } from 'node:crypto';
import { parseLeadVerifyKey } from './lead-sig.js';
import { VERIFY_KEY_COMMAND } from './tmux-bridge.js';

const ASK_AGAIN_MS = 5_000;
const ANSWER_TIMEOUT_MS = 5_000;

/** Ask the bridge at `socket` for one key's text; null when it has none or does not answer. */
export function askVerifyKey(socket: string, name: string): Promise<string | null> {
  return new Promise((resolve) => {
    const c = connect(socket);
    let text = '';
    const done = (v: string | null): void => {
      c.destroy();
      resolve(v);
    };
    c.setTimeout(ANSWER_TIMEOUT_MS, () => done(null));
    c.on('connect', () => c.write(`${JSON.stringify({ argv: [VERIFY_KEY_COMMAND, name], pane: null })}\n`));
    c.on('data', (d) => (text += d.toString('utf8')));
    c.on('end', () => {
      try {
        const a = JSON.parse(text) as { out?: unknown; code?: unknown };
        done(a.code === 0 && typeof a.out === 'string' ? a.out.trim() : null);
      } catch {
        done(null);
      }
    });
    c.on('error', () => done(null));
  });
}

/** The keys a screen got from the bridge process; `get` answers at once (null until a key has come). */
export function bridgeVerifyKeys(socket: string, now: () => number = Date.now): { get(name: string): KeyObject | null } {
  const keys = new Map<string, KeyObject>();
  const asked = new Map<string, number>();
  return {
    get(name) {
      const id = name.toLowerCase();
      const key = keys.get(id);
      if (key) return key;
      const last = asked.get(id);
      if (last === undefined || now() - last >= ASK_AGAIN_MS) {
        asked.set(id, now());
        void askVerifyKey(socket, id).then((text) => {
          const parsed = text ? parseLeadVerifyKey(text) : null;
          if (parsed) keys.set(id, parsed);
        });
      }
      return null;
    },
  };
}
