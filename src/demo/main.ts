/**
 * Demo mode's entry point: load a folder of member scripts and serve them, so `teamux start` can run
 * a whole team offline when no ANTHROPIC_API_KEY is set. Problems a user can cause (a bad script, an
 * empty folder, a port in use) come back as formatted messages, never as exceptions; the caller owns
 * the returned server and closes it when the team stops.
 */
import { formatScriptError, loadScriptDir } from './script.js';
import { startScriptedServer, type ScriptedServer } from './server.js';

/** Pause between streamed events in demo mode, so replies visibly type out in the panes. */
export const DEMO_CHUNK_DELAY_MS = 25;
/** Log entries a long demo keeps (each holds a whole transcript). */
const DEMO_LOG_LIMIT = 200;

export type DemoServerResult = { ok: true; server: ScriptedServer } | { ok: false; errors: string[] };

/** Serve `<scriptDir>/<member>.yaml` scripts on 127.0.0.1 (`port` 0 or absent: any free port). */
export async function runDemoServer(scriptDir: string, port?: number): Promise<DemoServerResult> {
  const loaded = await loadScriptDir(scriptDir);
  if (!loaded.ok) return { ok: false, errors: loaded.errors.map(formatScriptError) };
  try {
    const server = await startScriptedServer({
      scripts: loaded.value,
      port,
      chunkDelayMs: DEMO_CHUNK_DELAY_MS,
      maxLoggedRequests: DEMO_LOG_LIMIT,
    });
    return { ok: true, server };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      return { ok: false, errors: [`demo server: cannot listen on 127.0.0.1:${port ?? 0} (${code})`] };
    }
    throw e;
  }
}
