// The runner on a FakeClock and FakePaneHost: the shutdown escalation's timing (SIGHUP at once for a
// member that does not speak the protocol, SIGTERM and SIGKILL only after their 3 s graces; a protocol
// member's handshake timeout), status expiry, and finish() waiting for the last writes into the team
// folder; frame pacing of pane output (a key's echo at once, other output paced, streaming at 30 fps). Time moves only
// when the test advances it: no sleeps, no waiting out real timeouts.
import { existsSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS, STREAM_FRAME_MS } from '../../src/app/frames.js';
import { ECHO_WINDOW_MS } from '../../src/app/pane.js';
import { FakeClock } from '../helpers/clock.js';
import { launches, startMux, type MuxHarness } from '../helpers/mux.js';
import { makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function harness(names: string[], plain: string[] = []): Promise<MuxHarness & { clock: FakeClock; store: Awaited<ReturnType<typeof makeTeam>>['store'] }> {
  const t = await makeTeam(names);
  cleanups.push(t.cleanup);
  const clock = new FakeClock();
  const members = (await launches(t.store)).map((m) => (plain.includes(m.name) ? { ...m, speaksProtocol: false } : m));
  const h = await startMux(t.store, { clock, members });
  cleanups.push(() => h.stop());
  return Object.assign(h, { clock, store: t.store });
}

describe('shutdown escalation on the clock', () => {
  it('clock.plain-member-gets-sighup-at-once-then-sigterm-and-sigkill-after-3s-each', async () => {
    const h = await harness(['sh'], ['sh']);
    const sh = h.host.proc('sh');
    sh.exitOnSignal = false;
    h.mux.dispatch({ kind: 'action', action: 'shutdown_all' });
    h.type('y'); // C-a S asks first
    await waitFor(() => sh.signals.length > 0, 'the hang-up');
    expect(sh.signals).toEqual(['SIGHUP']);
    expect((await h.store.requests.list()).requests, 'no shutdown request for a plain command').toEqual([]);
    await waitFor(() => h.clock.pending().includes(3_000), 'the 3 s grace to start');
    await h.clock.advance(2_999);
    expect(sh.signals).toEqual(['SIGHUP']);
    await h.clock.advance(1);
    await waitFor(() => sh.signals.length === 2, 'SIGTERM');
    expect(sh.signals).toEqual(['SIGHUP', 'SIGTERM']);
    await waitFor(() => h.clock.pending().includes(3_000), 'the second grace to start');
    await h.clock.advance(2_999);
    expect(sh.signals).toEqual(['SIGHUP', 'SIGTERM']);
    await h.clock.advance(1);
    // The pane stays, exited, for C-a R.
    await waitFor(() => h.mux.state.panes.find((p) => p.id === 'sh')?.life === 'exited', 'the pane to show its exit');
    expect(sh.signals).toEqual(['SIGHUP', 'SIGTERM', 'SIGKILL']);
    expect(h.mux.state.message?.text).toBe('shut down sh');
  });

  it('clock.protocol-member-that-never-answers-is-terminated-after-the-timeout', async () => {
    const h = await harness(['alice']);
    const alice = h.host.proc('alice');
    alice.exitOnSignal = false;
    h.mux.dispatch({ kind: 'action', action: 'shutdown_all' });
    h.type('y'); // C-a S asks first
    // The handshake: a request, then the 2 s answer timeout (the harness's shutdownTimeoutMs) on the clock.
    await waitFor(() => h.clock.pending().includes(2_000), 'the answer timeout to start');
    expect((await h.store.requests.list()).requests.map((r) => `${r.type} ${r.from}→${r.to}`)).toEqual(['shutdown human→alice']);
    await h.clock.advance(1_999);
    expect(alice.signals).toEqual([]);
    await h.clock.advance(1);
    await waitFor(() => alice.signals.length === 1, 'SIGTERM after the timeout');
    expect(alice.signals).toEqual(['SIGTERM']);
    expect(h.mux.state.notices.get('alice')).toBe('sending SIGTERM');
    await waitFor(() => h.clock.pending().includes(3_000), 'the SIGTERM grace to start');
    await h.clock.advance(3_000);
    await waitFor(() => alice.signals.length === 2, 'SIGKILL');
    expect(alice.signals).toEqual(['SIGTERM', 'SIGKILL']);
    await waitFor(() => h.mux.state.panes.find((p) => p.id === 'alice')?.life === 'exited', 'the pane to show its exit');
  });

  it('clock.quitting-a-team-of-plain-commands-takes-no-time', async () => {
    const h = await harness(['sh', 'vim'], ['lead', 'sh', 'vim']);
    const started = h.clock.now();
    h.mux.dispatch({ kind: 'action', action: 'quit' });
    expect(await h.exit).toBe(0);
    expect(h.clock.now(), 'no timer had to fire').toBe(started);
    for (const name of ['lead', 'sh', 'vim']) expect(h.host.proc(name).signals, name).toEqual(['SIGHUP']);
    expect(h.host.disposed).toEqual({ kill: true });
  });
});

describe('timers of the screen', () => {
  it('clock.status-message-expires-after-message-ms', async () => {
    const h = await harness(['alice']);
    h.mux.dispatch({ kind: 'say', text: 'hello' });
    expect(h.mux.state.message?.text).toBe('hello');
    await h.clock.advance(5_999);
    expect(h.mux.state.message?.text).toBe('hello');
    await h.clock.advance(1);
    expect(h.mux.state.message).toBeNull();
  });
});

describe('finish', () => {
  it('mux.finish-waits-for-the-last-writes-into-the-team-folder', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    const h = await startMux(t.store);
    // Recording an exit is slow (a busy lock): finish() must still wait for it.
    const update = t.store.updateMember.bind(t.store);
    let recorded = 0;
    t.store.updateMember = async (name, patch) => {
      if (patch.status !== 'exited') return update(name, patch);
      await new Promise((r) => setTimeout(r, 300));
      const r = await update(name, patch);
      recorded++;
      return r;
    };
    expect(await h.stop()).toBe(0);
    expect(recorded, 'both exits recorded before finish() resolved').toBe(2);
    const alice = await t.store.member('alice');
    expect(alice.ok && alice.value.status).toBe('exited');
    // Nothing writes any more: the folder goes at the first try.
    rmSync(t.dir, { recursive: true });
    expect(existsSync(t.dir)).toBe(false);
  });
});

/**
 * Start a screen and wait, on conditions, until start-up is over (onScreenUp: its last frame asked
 * for, every watch set up) and what it wrote into the team folder that the screen shows (each
 * member's pid in team.json) has been seen by the screen's watch; the member events it appends show
 * nothing, so their late reads are no news (store/team-watch.ts). Then every frame due is drawn: from
 * here on, frames are asked for only by what the test does.
 */
async function quietHarness(names: string[]): Promise<Awaited<ReturnType<typeof harness>>> {
  const h = await harness(names);
  let up = false;
  void h.up.then(() => (up = true));
  await waitFor(() => up, 'the end of start-up', 20_000);
  await waitFor(() => h.mux.snapshot.roster.length === names.length + 1 && h.mux.snapshot.roster.every((m) => m.pid === process.pid), 'the members started in the team folder', 20_000);
  await h.see('TASKS');
  await h.clock.advance(100);
  return h;
}

/**
 * Print `text` in pane `id` and wait until the pane's emulator has parsed it, so the frame it asks
 * for is pending (a loaded machine may defer the parse past a few turns of the event loop).
 */
async function print(h: MuxHarness, id: string, text: string): Promise<void> {
  h.host.proc(id).emit(text);
  const pane = h.mux.panes.find((p) => p.name === id);
  if (!pane) throw new Error(`no pane ${id}`);
  await waitFor(() => pane.screenText().join('\n').includes(text.trim()), `${id} to parse ${text.trim()}`);
}

describe('frame pacing of a pane', () => {
  it('clock.echo-of-a-key-is-drawn-at-once-and-output-after-it-stays-paced', async () => {
    const h = await quietHarness(['alice']);
    const id = h.mux.state.panes[h.mux.state.focused]!.id;
    const proc = h.host.proc(id);
    await h.clock.advance(100);
    // A frame has just been drawn: any frame now would wait for the next interval.
    proc.emit('READY ');
    await h.see('READY');
    const t = h.clock.now();
    h.type('k');
    await waitFor(() => proc.input.includes('k'), 'the key to reach the pane');
    proc.emit('ECHO-k ');
    await h.see('ECHO-k', 5_000);
    expect(h.clock.now(), 'drawn without the clock moving').toBe(t);
    // More output, with no key before it, waits for the frame interval.
    await print(h, id, 'FLOOD-1 ');
    expect(await h.tty.text()).not.toContain('FLOOD-1');
    expect(h.clock.pending()).toContain(FRAME_MS);
    await h.clock.advance(FRAME_MS - 1);
    expect(await h.tty.text()).not.toContain('FLOOD-1');
    await h.clock.advance(1);
    await h.see('FLOOD-1');
  });

  /** Record each write to the terminal, with whether `pane` had parsed `parsedWhen` at that moment. */
  function recordWrites(h: MuxHarness, id: string, parsedWhen: string): Array<{ text: string; parsed: boolean }> {
    const pane = h.mux.panes.find((p) => p.name === id)!;
    const output = h.tty.output;
    const write = output.write.bind(output) as (chunk: unknown, ...rest: unknown[]) => boolean;
    const writes: Array<{ text: string; parsed: boolean }> = [];
    output.write = ((chunk: unknown, ...rest: unknown[]) => {
      writes.push({ text: String(chunk), parsed: pane.screenText().join('\n').includes(parsedWhen) });
      return write(chunk, ...rest);
    }) as typeof output.write;
    return writes;
  }

  /** The focused pane prints `prompt` (READY$ and maybe more), then k is typed and echoed: each write to the terminal meanwhile. */
  async function keyEchoed(h: MuxHarness & { clock: FakeClock }, prompt: string): Promise<Array<{ text: string; parsed: boolean }>> {
    const id = h.mux.state.panes[h.mux.state.focused]!.id;
    const proc = h.host.proc(id);
    proc.emit(prompt);
    await h.see('READY$');
    await h.clock.advance(100);
    const writes = recordWrites(h, id, 'READY$ k');
    h.type('k');
    await waitFor(() => proc.input.includes('k'), 'the key to reach the pane');
    proc.emit('k');
    await h.see('READY$ k');
    return writes;
  }

  it('clock.a-plain-echo-reaches-the-terminal-before-its-parse-and-its-frame-adds-nothing', async () => {
    const h = await quietHarness(['alice']);
    const writes = await keyEchoed(h, 'READY$ ');
    await h.clock.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
    // the characters alone, before the emulator parsed them; the frame after the parse had nothing to add
    expect(writes).toEqual([{ text: 'k', parsed: false }]);
    // and the terminal's cursor is just after the echo, where the pane's is
    const rows = (await h.tty.text()).split('\n');
    const y = rows.findIndex((r) => r.includes('READY$ k'));
    expect(h.tty.screen.cursor).toMatchObject({ x: rows[y]!.indexOf('READY$ k') + 'READY$ k'.length, y, visible: true });
  });

  it('clock.an-echo-in-colour-is-drawn-by-its-frame', async () => {
    const h = await quietHarness(['alice']);
    const writes = await keyEchoed(h, 'READY$ \x1b[31m');
    // the frame draws it, after the parse, in its colour
    expect(writes.length).toBe(1);
    expect(writes[0]!.parsed).toBe(true);
    expect(writes[0]!.text).toMatch(/\x1b\[[0-9;]*31m[^\x1b]*k|\x1b\[[0-9;]*38;5;1m[^\x1b]*k/);
  });

  it('clock.output-after-the-echo-window-is-paced', async () => {
    const h = await quietHarness(['alice']);
    const focused = h.mux.state.panes[h.mux.state.focused]!.id;
    const other = h.mux.state.panes.find((p) => p.id !== focused)!.id;
    await h.clock.advance(100);
    h.type('k');
    await waitFor(() => h.host.proc(focused).input.includes('k'), 'the key to reach the pane');
    await h.clock.advance(ECHO_WINDOW_MS - 5);
    // Another pane's output is drawn (the last frame is long past), then the late echo arrives.
    h.host.proc(other).emit('OTHER ');
    await h.see('OTHER');
    await h.clock.advance(10);
    await print(h, focused, 'LATE ');
    expect(await h.tty.text(), 'past the echo window: paced').not.toContain('LATE');
    // The frame before was output only: output streams, so the next one is STREAM_FRAME_MS after it.
    await h.clock.advance(STREAM_FRAME_MS - 11);
    expect(await h.tty.text()).not.toContain('LATE');
    await h.clock.advance(1);
    await h.see('LATE');
  });

  it('clock.streaming-output-is-drawn-at-30-fps-while-changes-and-echoes-keep-their-pace', async () => {
    const h = await quietHarness(['alice']);
    const focused = h.mux.state.panes[h.mux.state.focused]!.id;
    const other = h.mux.state.panes.find((p) => p.id !== focused)!.id;
    await h.clock.advance(100);
    h.host.proc(other).emit('S1 ');
    await h.see('S1');
    // Output after an output-only frame: STREAM_FRAME_MS apart.
    await print(h, other, 'S2 ');
    expect(h.clock.pending()).toContain(STREAM_FRAME_MS);
    await h.clock.advance(STREAM_FRAME_MS - 1);
    expect(await h.tty.text()).not.toContain('S2');
    await h.clock.advance(1);
    await h.see('S2');
    // A change of the screen (a status message) while output waits brings the frame to FRAME_MS.
    await print(h, other, 'S3 ');
    h.mux.dispatch({ kind: 'say', text: 'hello there' });
    await h.clock.advance(FRAME_MS - 1);
    expect(await h.tty.text()).not.toContain('S3');
    await h.clock.advance(1);
    await h.see('hello there');
    await h.see('S3');
    // The frame after a change is paced at FRAME_MS again.
    await print(h, other, 'S4 ');
    expect(h.clock.pending()).toContain(FRAME_MS);
    await h.clock.advance(FRAME_MS);
    await h.see('S4');
    // While output streams, a key's echo is still drawn at once.
    await print(h, other, 'S5 ');
    const t = h.clock.now();
    h.type('k');
    await waitFor(() => h.host.proc(focused).input.includes('k'), 'the key to reach the pane');
    h.host.proc(focused).emit('ECHO-k ');
    await h.see('ECHO-k', 5_000);
    await h.see('S5');
    expect(h.clock.now(), 'drawn without the clock moving').toBe(t);
  });
});
