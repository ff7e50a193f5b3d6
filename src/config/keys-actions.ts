/**
 * The vocabulary of key bindings a layout file may use: the names of the actions the multiplexer can
 * bind (the `keys.bindings` map is keyed by these), and the grammar of a key name (`n`, `N`, `?`,
 * `C-x`, `M-x`, `S-tab`, `enter`, `f1`..`f12`, `space`). The key table itself lives in `src/keys/`;
 * this file only says which words are legal so the config layer can reject typos early.
 */

/** Every action a key can be bound to, in the order the help overlay lists them. */
export const KEY_ACTIONS = [
  'focus_next',
  'focus_prev',
  'focus_1',
  'focus_2',
  'focus_3',
  'focus_4',
  'focus_5',
  'focus_6',
  'focus_7',
  'focus_8',
  'focus_9',
  'zoom',
  'scrollback',
  'approve',
  'reject',
  'next_request',
  'prev_request',
  'read_request',
  'broadcast',
  'shutdown',
  'shutdown_all',
  'restart',
  'restart_fresh',
  'toggle_sidebar',
  'help',
  'web_link',
  'quit',
  'detach',
  'send_prefix',
] as const;

/** One bindable action name. */
export type KeyAction = (typeof KEY_ACTIONS)[number];

/** Named (multi-letter) keys; everything else is a single printable ASCII character. */
export const NAMED_KEYS = [
  'space',
  'tab',
  'enter',
  'escape',
  'backspace',
  'delete',
  'insert',
  'home',
  'end',
  'pageup',
  'pagedown',
  'up',
  'down',
  'left',
  'right',
  'f1',
  'f2',
  'f3',
  'f4',
  'f5',
  'f6',
  'f7',
  'f8',
  'f9',
  'f10',
  'f11',
  'f12',
] as const;

/**
 * A key name: zero or more modifiers (`C-` control, `M-` meta/alt, `S-` shift) followed by one
 * printable ASCII character or a named key. Kept as one regular expression so the JSON schema can
 * carry it as a `pattern`.
 */
export const KEY_NAME_PATTERN = new RegExp(`^(?:[CMS]-)*(?:[!-~]|${NAMED_KEYS.join('|')})$`);

/** Examples shown to the user whenever a key name is rejected. */
export const KEY_NAME_EXAMPLES = 'n, N, ?, C-x, M-x, S-tab, enter, space, left, f1..f12';

/** True when `key` is a key name the multiplexer understands. */
export function isKeyName(key: string): boolean {
  return KEY_NAME_PATTERN.test(key);
}

/** True when `key` carries a control or meta modifier (so it does not collide with typed text). */
export function hasModifier(key: string): boolean {
  const modifiers = /^(?:[CMS]-)*/.exec(key.slice(0, -1))?.[0] ?? '';
  return modifiers.includes('C-') || modifiers.includes('M-');
}
