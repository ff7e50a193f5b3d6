// Spend against budgets as the sidebar shows it: the team watch tails the members' usage logs that
// real child processes append to, marks members whose own budget is spent, follows team.json when a
// budget is raised, and lets spend drop when a call leaves its window (no file event needed). The
// tail reads only what a log gained.
import { execFile } from 'node:child_process';
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetSummary } from '../../src/protocol/budget.js';
import { TeamWatch } from '../../src/store/team-watch.js';
import { UsageTail } from '../../src/store/usage-tail.js';
import { recordUsage } from '../../src/store/usage.js';
import { renderSidebar } from '../../src/ui/sidebar.js';
import { makeTeam, REPO, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const WRITER = path.join(REPO, 'test', 'workers', 'usage-writer.mjs');
function writeUsage(dir: string, member: string, count: number, tokens: number, usd: number | null = null): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WRITER, dir, member, String(count), String(tokens), String(usd)], (err, out, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(out)));
  });
}

function record(tokens: number, time = new Date().toISOString(), usd: number | null = null) {
  return { time, model: 'claude-sonnet-5', input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, usd };
}

async function budgetTeam() {
  const t = await makeTeam(['alice', 'bob']);
  cleanup.push(t.cleanup);
  const cfg = await t.store.config();
  cfg.budget = { tokens: 1000, usd: 5, windowS: 3600 };
  cfg.members.find((m) => m.name === 'alice')!.budget = { tokens: 300, usd: null, windowS: 3600 };
  await t.store.writeConfig(cfg);
  const watch = new TeamWatch(t.store);
  await watch.start();
  cleanup.push(() => watch.dispose());
  return { ...t, watch };
}

function sidebarText(watch: TeamWatch): string[] {
  return renderSidebar(watch.state(), { width: 70, height: 20, sections: [], selectedRequest: null, notices: [] }).map((r) => r.map((c) => c.text).join(''));
}

describe('budget line', () => {
  it('budget.spend-appended-by-child-processes-shows-against-the-budget-and-marks-spent-members', async () => {
    const t = await budgetTeam();
    expect(t.watch.state().budget).toMatchObject({ team: { spent: { tokens: 0 }, exhausted: false }, members: [{ name: 'alice', state: { exhausted: false } }] });
    expect(sidebarText(t.watch)[1]).toBe('BUDGET 0% 0/1.0k tok $0.00/$5.00 1h');

    await Promise.all([writeUsage(t.dir, 'alice', 3, 100, 0.25), writeUsage(t.dir, 'bob', 2, 150, 0.5)]);
    await waitFor(() => t.watch.state().budget?.team?.spent.tokens === 600, 'the team spend of both writers', 20_000);
    const b = t.watch.state().budget!;
    expect(b.team).toMatchObject({ spent: { tokens: 600, usd: 1.75, unpriced: 0 }, exhausted: false });
    expect(b.members).toEqual([{ name: 'alice', state: expect.objectContaining({ exhausted: true, spent: { tokens: 300, usd: 0.75, unpriced: 0 } }) }]);
    const lines = sidebarText(t.watch);
    expect(lines[1]).toBe('BUDGET 60% 600/1.0k tok $1.75/$5.00 1h · spent: alice');
    expect(lines.find((l) => l.startsWith('● alice'))).toMatch(/^● alice ✗budget /);
    expect(lines.find((l) => l.startsWith('● bob'))).not.toContain('budget');

    // The team's budget is spent by a call without a price: SPENT, and the unpriced call is said.
    await writeUsage(t.dir, 'bob', 1, 500, null);
    await waitFor(() => t.watch.state().budget?.team?.exhausted, 'the team budget spent', 20_000);
    expect(sidebarText(t.watch)[1]).toBe('BUDGET SPENT 1.1k/1.0k tok $1.75/$5.00 1h (1 unpriced) · spent: alice');

    // The lead raises the budgets in team.json: the line follows without any new usage.
    const cfg = await t.store.config();
    cfg.budget = { tokens: 10_000, usd: null, windowS: 86_400 };
    cfg.members.find((m) => m.name === 'alice')!.budget = null;
    await t.store.writeConfig(cfg);
    await waitFor(() => t.watch.state().budget?.team?.exhausted === false, 'the raised budget', 20_000);
    expect(t.watch.state().budget!.members).toEqual([]);
    expect(sidebarText(t.watch)[1]).toBe('BUDGET 11% 1.1k/10k tok 1d');

    expect(sidebarText(t.watch).find((l) => l.startsWith('● alice'))).not.toContain('budget');
  }, 60_000);

  it('budget.spend-drops-when-a-call-leaves-its-window-without-a-file-event', async () => {
    const t = await makeTeam(['alice']);
    cleanup.push(t.cleanup);
    const cfg = await t.store.config();
    cfg.members.find((m) => m.name === 'alice')!.budget = { tokens: 100, usd: null, windowS: 2 };
    await t.store.writeConfig(cfg);
    await recordUsage(t.store.paths, 'alice', record(150));
    const watch = new TeamWatch(t.store);
    await watch.start();
    cleanup.push(() => watch.dispose());
    expect(watch.state().budget!.members[0]!.state.exhausted).toBe(true);
    expect(sidebarText(watch)[1]).toBe('BUDGET spent: alice');
    // Two seconds later the call is out of the window: alice may call her model again.
    await waitFor(() => watch.state().budget!.members[0]!.state.exhausted === false, 'the call to leave the 2 s window', 15_000);
    expect(watch.state().budget!.members[0]!.state.spent.tokens).toBe(0);
    expect(sidebarText(watch)[1]).toBe('BUDGET 1 member budget, none spent');
  }, 30_000);

  it('budget.a-window-that-grows-counts-calls-the-shorter-one-had-dropped', async () => {
    const t = await makeTeam(['alice']);
    cleanup.push(t.cleanup);
    const cfg = await t.store.config();
    cfg.budget = { tokens: 1000, usd: null, windowS: 3600 };
    await t.store.writeConfig(cfg);
    await recordUsage(t.store.paths, 'alice', record(500, new Date(Date.now() - 2 * 3600_000).toISOString()));
    await recordUsage(t.store.paths, 'alice', record(100));
    const watch = new TeamWatch(t.store);
    await watch.start();
    cleanup.push(() => watch.dispose());
    expect(watch.state().budget!.team!.spent.tokens).toBe(100);
    // The lead widens the window to a day: the call from two hours ago counts again.
    await t.store.writeConfig({ ...(await t.store.config()), budget: { tokens: 1000, usd: null, windowS: 86_400 } });
    await waitFor(() => watch.state().budget!.team!.spent.tokens === 600, 'the wider window to count the older call', 20_000);
    expect(sidebarText(watch)[1]).toBe('BUDGET 60% 600/1.0k tok 1d');
  }, 30_000);

  it('budget.no-budget-no-line', async () => {
    const t = await makeTeam(['alice']);
    cleanup.push(t.cleanup);
    await recordUsage(t.store.paths, 'alice', record(150));
    const watch = new TeamWatch(t.store);
    await watch.start();
    cleanup.push(() => watch.dispose());
    expect(watch.state().budget).toBeNull();
    expect(sidebarText(watch).some((l) => l.startsWith('BUDGET'))).toBe(false);
  });
});

describe('usage tail', () => {
  it('usage-tail.reads-only-what-a-log-gained-and-starts-over-on-a-replaced-log', async () => {
    const t = await makeTeam(['alice']);
    cleanup.push(t.cleanup);
    const file = t.store.paths.usageLog('alice');
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify(record(i + 1))).join('\n') + '\n';
    await recordUsage(t.store.paths, 'alice', record(1));
    writeFileSync(file, lines);
    const tail = new UsageTail(t.store.paths);
    expect(await tail.readNew('alice')).toBe(true);
    expect(tail.usage('alice')).toHaveLength(2000);
    expect(tail.bytesRead).toBe(Buffer.byteLength(lines));

    // One more call: one line is read, not the log again.
    const one = JSON.stringify(record(7)) + '\n';
    appendFileSync(file, one);
    expect(await tail.readNew('alice')).toBe(true);
    expect(tail.bytesRead).toBe(Buffer.byteLength(lines) + Buffer.byteLength(one));
    expect(tail.usage('alice').at(-1)!.input).toBe(7);
    // Nothing new: nothing read, nothing changed.
    expect(await tail.readNew('alice')).toBe(false);
    expect(tail.bytesRead).toBe(Buffer.byteLength(lines) + Buffer.byteLength(one));

    // A line still being written waits for its newline; a garbage line is skipped and counted.
    const half = JSON.stringify(record(9));
    appendFileSync(file, 'not json\n' + half.slice(0, 20));
    expect(await tail.readNew('alice')).toBe(false);
    expect(tail.badLines).toBe(1);
    appendFileSync(file, half.slice(20) + '\n');
    expect(await tail.readNew('alice')).toBe(true);
    expect(tail.usage('alice')).toHaveLength(2002);

    // Replaced by hand (a new file renamed over it): read again from its start.
    writeFileSync(file + '.new', JSON.stringify(record(42)) + '\n');
    renameSync(file + '.new', file);
    expect(await tail.readNew('alice')).toBe(true);
    expect(tail.usage('alice').map((r) => r.input)).toEqual([42]);

    // Old records leave memory once they are out of every window…
    appendFileSync(file, JSON.stringify(record(5, '2020-01-01T00:00:00.000Z')) + '\n');
    await tail.readNew('alice');
    expect(tail.keep(Date.parse('2021-01-01T00:00:00.000Z'))).toBe(false);
    expect(tail.usage('alice').map((r) => r.input)).toEqual([42]);
    // …and come back when a window grows to reach them: the log is read again from its start.
    expect(tail.keep(Date.parse('2019-01-01T00:00:00.000Z'))).toBe(true);
    expect(tail.usage('alice')).toEqual([]);
    await tail.readNew('alice');
    expect(tail.usage('alice').map((r) => r.input)).toEqual([42, 5]);
  });

  it('budget-summary.next-change-is-when-the-oldest-counted-call-leaves-its-window', () => {
    const now = Date.parse('2026-12-01T12:00:00.000Z');
    const usage = { alice: [record(10, '2026-12-01T11:30:00.000Z'), record(10, '2026-12-01T10:00:00.000Z')], bob: [record(5, '2026-12-01T11:59:00.000Z')] } as Record<string, ReturnType<typeof record>[]>;
    const s = budgetSummary({ tokens: 100, usd: null, windowS: 3600 }, [{ name: 'alice' }, { name: 'bob', budget: { tokens: 5, usd: null, windowS: 60 } }], (n) => usage[n] ?? [], now);
    expect(s.team).toMatchObject({ spent: { tokens: 15 }, exhausted: false });
    expect(s.members).toEqual([{ name: 'bob', state: expect.objectContaining({ exhausted: true }) }]);
    // bob's call leaves his 60 s window at 12:00:00 + 1 ms, before alice's leaves the hour.
    expect(s.nextChangeAt).toBe(Date.parse('2026-12-01T12:00:00.001Z'));
  });
});
