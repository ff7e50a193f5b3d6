// The parse budget: pane output is parsed at once on the read path until the shared budget of a
// window is spent; then writes go through xterm's deferred, yielding path until the next window.
import { describe, expect, it } from 'vitest';
import { ParseBudget } from '../../src/vt/parse-budget.js';
import { PaneTerminal } from '../../src/vt/terminal.js';

describe('ParseBudget', () => {
  it('budget.allows-until-the-window-is-spent-then-renews', () => {
    let now = 1_000;
    const budget = new ParseBudget(() => now, 16, 8);
    expect(budget.allows()).toBe(true);
    budget.spend(() => (now += 5));
    expect(budget.allows()).toBe(true);
    budget.spend(() => (now += 4));
    // 9 ms spent in the window that began at 1000: no more at once until 1016
    expect(budget.allows()).toBe(false);
    now = 1_015;
    expect(budget.allows()).toBe(false);
    now = 1_016;
    expect(budget.allows()).toBe(true);
  });

  it('budget.counts-a-parse-that-throws', () => {
    let now = 0;
    const budget = new ParseBudget(() => now, 16, 8);
    budget.allows();
    expect(() => budget.spend(() => {
      now += 10;
      throw new Error('boom');
    })).toThrow('boom');
    expect(budget.allows()).toBe(false);
  });

  it('budget.a-flood-is-queued-once-the-budget-is-spent-and-all-of-it-is-parsed', async () => {
    const term = new PaneTerminal({ cols: 80, rows: 24, scrollback: 100 });
    const line = 'z'.repeat(79) + '\r\n';
    // Written in one go, with no turn of the event loop in between: the first writes are parsed at
    // once, then the budget is spent and the rest waits for xterm's own (yielding) parse.
    let parsed = 0;
    let atOnce = 0;
    for (let i = 0; i < 20_000; i++) {
      let sync = true;
      term.write(line, () => {
        parsed++;
        if (sync) atOnce++;
      });
      sync = false;
    }
    expect(atOnce).toBeGreaterThan(0);
    expect(atOnce).toBeLessThan(20_000);
    expect(term.pendingBytes).toBeGreaterThan(0);
    await term.writeAsync('end');
    expect(parsed).toBe(20_000);
    expect(term.pendingBytes).toBe(0);
    expect(term.snapshotText().at(-1)).toBe('end');
    term.dispose();
  });
});
