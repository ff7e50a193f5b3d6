/**
 * The shutdown handshake with a member that does not exit by itself after approving (Claude Code):
 * once its shutdown_response approves, teamux sends SIGTERM at once instead of waiting out the
 * timeout; a refusal still leaves it running, and a process deaf to SIGTERM still gets SIGKILL. Its
 * ending is begun once however often the approval is seen, and shows as `ended (shutdown)`, dim.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { shutdownHandshake, type ShutdownTarget } from '../../../src/app/shutdown.js';
import { endApprovedShutdowns } from '../../../src/agents/claude/wake.js';
import { memberActivity } from '../../../src/protocol/activity.js';
import type { TeamStore } from '../../../src/store/team.js';
import { makeTeam, waitFor } from '../../helpers/team.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

/** A member process that records the signals it gets and exits on the ones it heeds. */
function fakeClaude(heeds: NodeJS.Signals[]): ShutdownTarget & { signals: NodeJS.Signals[]; write(data: string): void } {
  let exited = false;
  const waiters: Array<() => void> = [];
  const signals: NodeJS.Signals[] = [];
  return {
    name: 'amy', endsOnApproval: true, speaksProtocol: true, signals,
    write: () => undefined,
    exited: () => exited,
    kill(signal) {
      signals.push(signal);
      if (heeds.includes(signal)) {
        exited = true;
        waiters.splice(0).forEach((w) => w());
      }
    },
    waitExit: (ms) => (exited ? Promise.resolve(true) : new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      waiters.push(() => { clearTimeout(t); resolve(true); });
    })),
  };
}

async function answerWhenAsked(store: TeamStore, approve: boolean): Promise<void> {
  const req = await waitFor(async () => (await store.requests.list()).requests.find((r) => r.type === 'shutdown' && r.status === 'pending'), 'the shutdown request');
  await store.answerRequest(req.id, 'amy', approve, approve ? 'bye' : 'still busy');
}

describe('shutdown of a Claude Code member', () => {
  it('claude.shutdown-approved-ends-the-process-at-once', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude' });
    cleanup = t.cleanup;
    const target = fakeClaude(['SIGTERM']);
    const steps: string[] = [];
    const started = Date.now();
    const [outcome] = await Promise.all([shutdownHandshake(t.store, 'lead', target, 30_000, (s) => steps.push(s)), answerWhenAsked(t.store, true)]);
    expect(outcome).toEqual({ kind: 'exited', how: 'approved' });
    expect(target.signals).toEqual(['SIGTERM']);
    expect(steps).toContain('approved; ending the process');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('claude.shutdown-refused-leaves-it-running-and-sigkill-still-follows-a-deaf-process', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude' });
    cleanup = t.cleanup;
    const stays = fakeClaude(['SIGTERM']);
    const [refused] = await Promise.all([shutdownHandshake(t.store, 'lead', stays, 30_000, () => undefined), answerWhenAsked(t.store, false)]);
    expect(refused).toEqual({ kind: 'refused', reason: 'still busy' });
    expect(stays.signals).toEqual([]);
    const deaf = fakeClaude(['SIGKILL']);
    const [killed] = await Promise.all([shutdownHandshake(t.store, 'lead', deaf, 300, () => undefined), answerWhenAsked(t.store, true)]);
    expect(killed).toEqual({ kind: 'exited', how: 'killed' });
    expect(deaf.signals).toEqual(['SIGTERM', 'SIGKILL']);
  });
});

describe('ending a Claude Code member after its approved shutdown', () => {
  it('claude.shutdown-approved-sigterm-is-sent-once-and-the-end-is-no-failure', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude' });
    cleanup = t.cleanup;
    // A member deaf to SIGTERM for a moment: the watch sees the approval again on every folder change.
    const target = fakeClaude(['SIGKILL']);
    const [outcome] = await Promise.all([
      shutdownHandshake(t.store, 'lead', target, 400, () => undefined),
      (async () => {
        await answerWhenAsked(t.store, true);
        const started = () => 0;
        for (let i = 0; i < 3; i++) await endApprovedShutdowns(t.store, [target], started, 400);
      })(),
    ]);
    expect(outcome).toEqual({ kind: 'exited', how: 'killed' });
    expect(target.signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(target.endedByShutdown).toBe(true);
    // On the screen: 'ended (shutdown)', dim like exit 0, not 'exited 143' in the failure style.
    const process = { life: 'exited' as const, exitCode: 143, signal: null };
    const base = { name: 'amy', runtime: 'claude' as const, status: 'exited' as const, exitCode: 143, pending: [] };
    expect(memberActivity({ ...base, process: { ...process, endedByShutdown: true } })).toEqual({ kind: 'exited', label: 'ended (shutdown)' });
    expect(memberActivity({ ...base, process })).toEqual({ kind: 'failed', label: 'exited 143' });
  });
});
