// The screen around the panes: the sidebar's width (percent within min..max, hidden on narrow
// terminals, the toggle key), stable pane numbers, the exited-pane hint and expiring status messages.
import { afterEach, describe, expect, it } from 'vitest';
import { sidebarWidth, type SidebarSize } from '../../src/mux/geometry.js';
import { startMux } from '../helpers/mux.js';
import { makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SIZE: SidebarSize = { width: { percent: 30 }, minWidth: 24, maxWidth: 48, hideBelow: 90, hidden: false };

describe('sidebar width', () => {
  it('sidebar.percent-within-min-and-max', () => {
    expect(sidebarWidth(SIZE, 120, null)).toBe(36);
    expect(sidebarWidth(SIZE, 100, null)).toBe(30);
    expect(sidebarWidth(SIZE, 300, null)).toBe(48);
    expect(sidebarWidth({ ...SIZE, hideBelow: 0 }, 60, null)).toBe(24);
    expect(sidebarWidth({ ...SIZE, width: { cells: 40 } }, 120, null)).toBe(40);
  });

  it('sidebar.hides-on-narrow-terminals-and-the-toggle-overrides', () => {
    expect(sidebarWidth(SIZE, 89, null)).toBe(0);
    expect(sidebarWidth(SIZE, 89, true)).toBe(27);
    expect(sidebarWidth(SIZE, 120, false)).toBe(0);
    expect(sidebarWidth({ ...SIZE, hidden: true }, 200, null)).toBe(0);
    expect(sidebarWidth({ ...SIZE, hidden: true }, 200, true)).toBe(48);
    // Never so wide the panes cannot be drawn; too narrow to be useful is hidden.
    expect(sidebarWidth({ ...SIZE, width: { cells: 100 } }, 80, null)).toBe(0);
    expect(sidebarWidth({ ...SIZE, width: { cells: 100 }, hideBelow: 0 }, 80, true)).toBe(67);
    expect(sidebarWidth({ ...SIZE, hideBelow: 0 }, 28, true)).toBe(0);
  });
});

async function harness(names: string[], opts: Parameters<typeof startMux>[1] = {}) {
  const t = await makeTeam(names);
  cleanups.push(t.cleanup);
  const h = await startMux(t.store, opts);
  cleanups.push(() => h.stop());
  return Object.assign(h, { store: t.store });
}

describe('screen behaviour', () => {
  it('keys.toggle-sidebar-and-auto-hide', async () => {
    const sidebar = { ...SIZE, position: 'right' as const, sections: ['task_board' as const, 'mailbox' as const, 'requests' as const] };
    const narrow = await harness(['alice'], { cols: 80, rows: 24, sidebar });
    await narrow.see('→ lead');
    expect(await narrow.tty.text(), 'hidden on an 80-column terminal').not.toContain('teamux · test');
    narrow.prefix('t');
    await narrow.see('teamux · test');
    await narrow.see('sidebar shown');
    narrow.prefix('t');
    await narrow.see('sidebar hidden (C-a t shows it)');
    expect(await narrow.tty.text()).not.toContain('teamux · test');
  });

  it('keys.pane-numbers-stay-after-a-shutdown', async () => {
    const h = await harness(['alice', 'bob'], { shutdownTimeoutMs: 300 });
    await h.see(/3 bob/);
    h.prefix('2');
    h.prefix('s');
    h.type('y');
    await h.see('shut down alice');
    await h.see(/ 2 alice .*(exited|killed)/);
    await h.see(/ 3 bob /);
    h.prefix('3');
    await h.see('→ bob');
  });

  it('keys.typing-into-an-exited-pane-gives-a-hint', async () => {
    const h = await harness(['alice']);
    h.host.proc('lead').exit(0);
    await h.see(/1 lead .*exited 0/);
    h.type('x');
    await h.see('lead: exited 0; keys go nowhere (C-a R restarts it)');
  });

  it('status.messages-expire', async () => {
    const h = await harness(['alice'], { messageMs: 1_500 });
    h.prefix('Y');
    await h.see('C-a Y is not bound');
    await waitFor(async () => !(await h.tty.text()).includes('C-a Y is not bound'), 'the message to expire', 5_000);
  });
});
