/**
 * The API key of one agent process, read in-process at start so that it is in no environment: from
 * the file named by TEAMUX_API_KEY_FILE, or from the first line printed by TEAMUX_API_KEY_COMMAND
 * (run with /bin/sh, without credentials in its environment). The key is registered with the store's
 * redaction, so it is scrubbed from everything written to the team folder even though no
 * environment variable holds it. Without either variable, ANTHROPIC_API_KEY is used as before.
 * What this does not protect against (a process of the same user reading the file or running the
 * command itself, or ptrace) is written down in docs/security.md.
 */
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { registerSecret } from '../store/redact.js';

/** How long a key command may take. */
const KEY_COMMAND_TIMEOUT_MS = 30_000;

/** The key from a key source (null when none is configured), or what went wrong with a hint. */
export type LoadedKey =
  | { ok: true; key: string | null; source: 'file' | 'command' | 'env'; warnings: string[] }
  | { ok: false; message: string; hint: string };

/** The environment for a key command: the caller's, without any credential. */
function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'TEAMUX_API_KEY_FILE', 'TEAMUX_API_KEY_COMMAND']) delete out[k];
  return out;
}

/** Read the key from TEAMUX_API_KEY_FILE or TEAMUX_API_KEY_COMMAND; register it for redaction. */
export async function loadApiKey(env: NodeJS.ProcessEnv): Promise<LoadedKey> {
  const file = env.TEAMUX_API_KEY_FILE?.trim();
  const command = env.TEAMUX_API_KEY_COMMAND?.trim();
  if (file && command) return { ok: false, message: 'both TEAMUX_API_KEY_FILE and TEAMUX_API_KEY_COMMAND are set', hint: 'give the key one way: a file or a command' };
  if (!file && !command) return { ok: true, key: null, source: 'env', warnings: [] };
  const warnings: string[] = [];
  let key: string;
  if (file) {
    let text: string;
    try {
      const st = await fsp.stat(file);
      if ((st.mode & 0o077) !== 0) warnings.push(`the key file ${file} can be read by other users (mode ${(st.mode & 0o777).toString(8)}); hint: chmod 600 ${JSON.stringify(file)}`);
      text = await fsp.readFile(file, 'utf8');
    } catch (err) {
      return { ok: false, message: `cannot read the key file ${file} (TEAMUX_API_KEY_FILE): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, hint: 'check the path in the layout\'s api_key.file, and that the file exists and is readable' };
    }
    key = firstLine(text);
    if (!key) return { ok: false, message: `the key file ${file} is empty`, hint: 'put the API key on its first line' };
  } else {
    const r = await runKeyCommand(command!, env);
    if (!r.ok) return r;
    key = r.key;
  }
  registerSecret(key);
  return { ok: true, key, source: file ? 'file' : 'command', warnings };
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

function runKeyCommand(command: string, env: NodeJS.ProcessEnv): Promise<{ ok: true; key: string } | { ok: false; message: string; hint: string }> {
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', command], { env: commandEnv(env), timeout: KEY_COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 }, (error, stdout, stderr) => {
      const hint = 'check the layout\'s api_key.command (TEAMUX_API_KEY_COMMAND); it must print the key and exit 0';
      if (error) {
        // Never quote stdout: on a failure it may still hold the key.
        const why = error.killed ? `was killed after ${KEY_COMMAND_TIMEOUT_MS / 1000}s` : `failed (${error.code ?? error.message})`;
        resolve({ ok: false, message: `the key command ${JSON.stringify(command)} ${why}: ${String(stderr).trim().split('\n')[0]?.slice(0, 200) ?? ''}`, hint });
        return;
      }
      const key = firstLine(String(stdout));
      resolve(key ? { ok: true, key } : { ok: false, message: `the key command ${JSON.stringify(command)} printed nothing`, hint });
    });
  });
}
