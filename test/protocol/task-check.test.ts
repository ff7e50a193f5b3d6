// The hand checks of protocol/task-check.ts agree with the zod schemas they copy: on a table of task
// files and team.json contents (every field left out, null, of the wrong type, at its edges, plus
// unknown keys), each input is taken by both or by neither, and what the hand check returns is what
// zod returns, to the key order of its JSON (the claim writes it back). A task with pipeline fields is
// the one designed difference: the hand check leaves it to the full path.
import { describe, expect, it } from 'vitest';
import { checkTask, checkTeamConfig } from '../../src/protocol/task-check.js';
import { Task, TeamConfig } from '../../src/protocol/types.js';

const TASK = {
  version: 2, id: '12', subject: 'write the parser', description: 'with tests', status: 'pending', owner: null,
  blocks: ['13'], blockedBy: ['3', '4'], revision: 3, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:01.000Z',
  claimedAt: null, completedAt: null, result: null, holder: { pid: 4242, start: 123456 },
  attempts: [{ owner: 'amy', startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:00:02.000Z', outcome: 'released', note: 'later' }],
  blockedReason: null, reopenedAt: null,
};

const MEMBER = {
  name: 'amy', role: 'coder', kind: 'teammate', status: 'idle', pid: 77, pidStart: 9, joinedAt: null, exitCode: null,
  planRequired: false, planApprover: null, tools: ['task_claim'], runtime: 'agent', speaksProtocol: true,
};

const CONFIG = { version: 1, name: 'team', root: '/tmp/x', createdAt: '2026-01-01T00:00:00.000Z', layoutFile: null, run: 'run-1', members: [MEMBER] };

/** Values a field may be given: of every JSON kind, and at the edges of the usual checks. */
const VALUES: unknown[] = [
  undefined, null, '', 'x', 'amy', 'Amy', 'a'.repeat(33), '12', '0', '012', '1234567890', 'pending', 'in_progress', 'completed', 'deleted', 'bogus',
  0, 1, -1, 1.5, 2, 3, 2 ** 53, 1e21, true, false, [], ['1'], ['a'], [null], {}, { pid: 1, start: null }, { pid: 0, start: 1 }, { pid: 1 },
  [{ owner: 'bob', startedAt: 't' }], [{ owner: 'bob', startedAt: 't', outcome: 'bogus' }], [{ owner: 'Bob', startedAt: 't' }], [{ owner: 'bob', startedAt: 't', extra: 1 }],
  { tokens: null, usd: 1.5, windowS: 60 }, { windowS: 60 }, { tokens: 1.5, windowS: 60 }, { usd: 0, windowS: 60 }, { windowS: 0 },
];

/** Each input with one key replaced by each value (or left out), plus an unknown key. */
function variants(base: Record<string, unknown>, extraKeys: string[] = []): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [base, { ...base, unknown: 1 }];
  for (const key of [...Object.keys(base), ...extraKeys]) {
    for (const v of VALUES) {
      const next = { ...base };
      if (v === undefined) delete next[key];
      else next[key] = v;
      out.push(next);
    }
  }
  return out;
}

describe('hand checks agree with the zod schemas', () => {
  it('task-check.a-task-file-is-taken-and-shaped-as-zod-does', () => {
    const inputs: unknown[] = [...variants(TASK), null, [], 'task', 3, { ...TASK, attempts: undefined, holder: undefined, description: undefined }];
    let taken = 0;
    for (const input of inputs) {
      const zod = Task.safeParse(input);
      const hand = checkTask(input);
      expect(hand === null ? null : JSON.stringify(hand), JSON.stringify(input)).toBe(zod.success ? JSON.stringify(zod.data) : null);
      if (hand) taken++;
    }
    // The table is worth something only if it holds both answers, many times.
    expect(taken).toBeGreaterThan(50);
    expect(inputs.length - taken).toBeGreaterThan(200);
  });

  it('task-check.a-task-with-pipeline-fields-is-left-to-the-full-path', () => {
    const piped = { ...TASK, pipeline: { stage: 'exec', story: 's1', key: 'exec-s1' } };
    expect(Task.safeParse(piped).success).toBe(true);
    expect(checkTask(piped)).toBeNull();
  });

  it('task-check.team-json-is-taken-and-shaped-as-zod-does', () => {
    const members = variants(MEMBER, ['claudeTeam', 'budget']).map((m) => ({ ...CONFIG, members: [MEMBER, m] }));
    const inputs: unknown[] = [...variants(CONFIG, ['budget']), ...members, null, { ...CONFIG, members: [] }, { ...CONFIG, version: 2 }];
    let taken = 0;
    for (const input of inputs) {
      const zod = TeamConfig.safeParse(input);
      const hand = checkTeamConfig(input);
      expect(hand === null ? null : JSON.stringify(hand), JSON.stringify(input)).toBe(zod.success ? JSON.stringify(zod.data) : null);
      if (hand) taken++;
    }
    expect(taken).toBeGreaterThan(50);
    expect(inputs.length - taken).toBeGreaterThan(200);
  });
});
