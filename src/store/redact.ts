/**
 * The secrets teamux must never write to disk, and the one function that removes them. The store
 * knows them from three places: the ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN values in its own
 * process, the keys registered at run time (an agent that read its key from a key file or a key
 * command), and anything shaped like an Anthropic key (`sk-ant-…`) or set as one (`x-api-key: …`,
 * `ANTHROPIC_API_KEY=…`). Every write path of the store (fsx.atomicWrite, fsx.appendLine, the log)
 * and the transcripts pass their text through `redact`. Replacements keep JSON valid: the marker
 * has no quote or backslash, and a key's JSON-escaped spelling is redacted as well as its raw one.
 */

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/** Key-shaped text: an Anthropic key (even a cut-off piece of one), or the value after a key's name (the name is kept). */
const KEY_SHAPED = /sk-ant-[A-Za-z0-9_-]*/g;
const KEY_SETTING = /((?:x-api-key|authorization)\\?["']?\s*[:=]\s*\\?["']?(?:Bearer\s+)?|ANTHROPIC_(?:API_KEY|AUTH_TOKEN)=\\?["']?)(?!\[redacted\])[^\s"'\\,;}]+/gi;

/** The shortest secret redacted by value (shorter ones would blank out ordinary words). */
const MIN_SECRET = 8;

const registered = new Set<string>();

/** Add a secret this process holds (a key read from a file or a command) to the ones redacted. */
export function registerSecret(secret: string): void {
  const s = secret.trim();
  if (s.length >= MIN_SECRET) registered.add(s);
}

/** Every secret redacted by value right now: the registered ones and the credentials in the environment. */
export function knownSecrets(): string[] {
  const out = new Set(registered);
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']) {
    const v = process.env[name]?.trim();
    if (v && v.length >= MIN_SECRET) out.add(v);
  }
  return [...out];
}

/** The text with every known secret (raw or JSON-escaped) and anything key-shaped replaced by [redacted]. */
export function redact(text: string, extra: readonly string[] = []): string {
  let out = text;
  for (const secret of [...knownSecrets(), ...extra.filter((s) => s.length >= MIN_SECRET)]) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
  }
  return out.replace(KEY_SHAPED, REDACTED).replace(KEY_SETTING, `$1${REDACTED}`);
}
