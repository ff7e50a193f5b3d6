// End-to-end: a pane that prints hostile escape sequences forever cannot keep teamux alive once its
// terminal is gone. `teamux start` runs in a private tmux server; the lead pane floods huge REP/SU/IL
// counts, screen fills and garbage; then the tmux server is killed (the terminal closes: SIGHUP and
// EOF) or teamux gets SIGTERM, and teamux and the flooding process must be gone within a deadline.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../src/store/liveness.js';
import { BIN, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const drivers: TmuxDriver[] = [];
const cleanups: Array<() => void> = [];
const strays: number[] = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  for (const pid of strays.splice(0)) if (pidAlive(pid, null)) process.kill(pid, 'SIGKILL');
  for (const c of cleanups.splice(0)) c();
});

// Printed in a loop forever: huge counts, screen fills and clears, an OSC title, C1 bytes.
const FLOOD = String.raw`\033[1000000000b\033[1000000000S\033[1000000000L\033[1000000000T\033#8\033[2J\033[1000000000Z\033[1000000000I\033]2;flood\007\302\233999999999M FLOOD `;

/** A team whose lead floods its pane; returns the layout and the team folder. */
function floodTeam(): { layout: string; teamDir: string } {
  const tmp = tempDir('teamux-e2e-');
  cleanups.push(tmp.cleanup);
  const layout = path.join(tmp.dir, 'flood.yaml');
  const script = `while :; do printf '${FLOOD}'; done`;
  writeFileSync(layout, `name: flood\nsidebar: { hidden: false }\nlead: { name: lead, role: shell, command: [bash, --norc, --noprofile, -c, ${JSON.stringify(script)}] }\n`);
  return { layout, teamDir: path.join(tmp.dir, '.teamux', 'flood') };
}

/** Start teamux on the flood team; resolves with teamux's pid once the flood is on screen. */
async function startFlood(): Promise<{ d: TmuxDriver; pid: number; teamDir: string }> {
  const { layout, teamDir } = floodTeam();
  const d = await TmuxDriver.start(`${process.execPath} ${BIN} start ${layout}; sleep 600`, 120, 40);
  drivers.push(d);
  const muxJson = path.join(teamDir, 'mux.json');
  const pid = await waitFor(() => (existsSync(muxJson) ? (JSON.parse(readFileSync(muxJson, 'utf8')) as { pid: number }).pid : null), 'teamux to claim the team', 20_000);
  strays.push(pid);
  // The flood has reached the screen (DECALN's E fill or the text), and the sidebar is drawn.
  await d.waitFor((s) => /EEEEEEEEEE|FLOOD/.test(s) && /lead/.test(s), 'the flood on screen', 30_000);
  return { d, pid, teamDir };
}

describe('a flooding pane cannot keep teamux alive (e2e in tmux)', () => {
  it('kill-server closes the terminal and teamux is gone within the deadline', async () => {
    const { d, pid } = await startFlood();
    // Still live while flooding: a key reaches teamux and the help overlay opens.
    await d.keys('C-a', '?');
    await d.waitFor(/teamux keys/, 'the help overlay while the pane floods', 15_000);
    const killedAt = Date.now();
    await d.kill();
    await waitFor(() => !pidAlive(pid, null), 'teamux to exit after kill-server', 10_000);
    expect(Date.now() - killedAt).toBeLessThan(10_000);
  }, 120_000);

  it('SIGTERM ends teamux and its flooding member within the deadline', async () => {
    const { pid } = await startFlood();
    const children = await waitFor(() => {
      try {
        return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return null;
      }
    }, 'the member process');
    strays.push(...children);
    process.kill(pid, 'SIGTERM');
    await waitFor(() => !pidAlive(pid, null), 'teamux to exit after SIGTERM', 10_000);
    for (const child of children) await waitFor(() => !pidAlive(child, null), `member ${child} to exit`, 10_000);
  }, 120_000);
});
