// Keys routed by the focused pane's emulator modes, read as the key is handled (term-facts.ts): cursor
// keys follow the pane's cursor-key mode as it is when they are typed, other keys go out as typed; in
// scroll mode a page is the pane's height as it is then (one line kept), also after a resize; and a
// key typed into a view scrolled back goes to the process and brings the view back to the bottom.
import { afterEach, describe, expect, it } from 'vitest';
import { startMux, type MuxHarness } from '../helpers/mux.js';
import { makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function harness(opts: Parameters<typeof startMux>[1] = {}): Promise<MuxHarness> {
  const t = await makeTeam(['alice']);
  cleanups.push(t.cleanup);
  const h = await startMux(t.store, opts);
  cleanups.push(() => h.stop());
  await h.see('→ lead');
  return h;
}

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `L${String(i + 1).padStart(3, '0')}`).join('\r\n');

describe('input routed by the pane modes', () => {
  it('input.cursor-keys-follow-the-pane-mode-when-typed', async () => {
    const h = await harness();
    const lead = h.host.proc('lead');
    h.type('\x1b[Ax');
    await waitFor(() => lead.input === '\x1b[Ax', 'normal-mode up and x');
    // the application asks for application cursor keys (DECCKM): the next up arrow is SS3
    lead.emit('\x1b[?1h');
    h.type('\x1b[A\x1bOBy');
    await waitFor(() => lead.input === '\x1b[Ax\x1bOA\x1bOBy', 'application-mode up and down');
    lead.emit('\x1b[?1l');
    h.type('\x1bOA');
    await waitFor(() => lead.input.endsWith('y\x1b[A'), 'normal mode again');
  });

  it('input.scroll-mode-pages-by-the-pane-height-when-the-key-comes', async () => {
    const h = await harness();
    const lead = h.host.proc('lead');
    const pane = h.mux.panes[0]!;
    lead.emit(lines(400));
    h.prefix('[');
    await h.see(/\[scroll\]/);
    h.type('\x1b[5~');
    await waitFor(() => pane.term.scrollOffset > 0, 'a page up');
    expect(pane.term.scrollOffset).toBe(pane.term.rows - 1);
    // a smaller terminal: the next page is the pane's new height
    h.tty.output.rows = 20;
    h.tty.output.emit('resize');
    await waitFor(() => pane.term.rows < 30, 'the pane to shrink');
    const before = pane.term.scrollOffset;
    h.type('\x1b[5~');
    await waitFor(() => pane.term.scrollOffset !== before, 'another page up');
    expect(pane.term.scrollOffset - before).toBe(pane.term.rows - 1);
    expect(lead.input).toBe('');
  });

  it('input.a-key-in-a-view-scrolled-back-goes-out-and-returns-to-the-bottom', async () => {
    const h = await harness();
    const lead = h.host.proc('lead');
    const pane = h.mux.panes[0]!;
    lead.emit(lines(400));
    pane.term.scrollBy(-50);
    expect(pane.term.isScrolledBack).toBe(true);
    h.type('k');
    await waitFor(() => lead.input === 'k', 'the key to reach the process');
    expect(pane.term.isScrolledBack).toBe(false);
    await h.see('L400');
  });
});
