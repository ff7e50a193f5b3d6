/**
 * The layout's `pipeline:` section: defaults, the normalized settings, and what a person sees for a
 * bad section (file:line:col, the key path, a hint).
 */
import { describe, expect, test } from 'vitest';
import { formatErrors, loadLayout } from '../../src/config/load.js';
import { cli } from '../helpers/team.js';
import { lines, writeLayout } from './layout-files.js';

const TEAM = ['name: demo', 'lead:', '  name: lead', '  role: Leads', '  command: sh', 'teammates:', '  - { name: alice, role: Builds, command: sh }', '  - { name: carol, role: Checks, command: sh }'];

function load(...extra: string[]) {
  const file = writeLayout(lines(...TEAM, ...extra));
  return { file, result: loadLayout(file) };
}
function errorsOf(...extra: string[]): string {
  const { file, result } = load(...extra);
  if (result.ok) throw new Error('expected errors');
  return formatErrors(result.errors).split(file).join('team.yaml');
}

describe('pipeline section', () => {
  test('pipeline.defaults: max_parallel 5, max_fix_rounds 3, story cap warn 10 max 20, roles open', () => {
    const { result } = load('pipeline: {}');
    if (!result.ok) throw new Error(formatErrors(result.errors));
    expect(result.layout.pipeline).toEqual({
      goal: '', roles: { plan: null, execute: null, test: null, verify: null, review: null },
      maxParallel: 5, maxFixRounds: 3, storyCap: { warn: 10, max: 20 }, retentionDays: 30,
    });
  });

  test('pipeline.absent-means-no-pipeline', () => {
    const { result } = load();
    expect(result.ok && result.layout.pipeline).toBeNull();
  });

  test('pipeline.settings-are-normalized', () => {
    const { result } = load('pipeline:', '  goal: a parser', '  roles: { plan: [lead], execute: [alice], verify: [carol] }', '  max_parallel: 2', '  max_fix_rounds: 1', '  story_cap: 8');
    if (!result.ok) throw new Error(formatErrors(result.errors));
    expect(result.layout.pipeline).toMatchObject({ goal: 'a parser', roles: { plan: ['lead'], execute: ['alice'], verify: ['carol'], test: null }, maxParallel: 2, maxFixRounds: 1, storyCap: { warn: 8, max: 8 } });
  });

  test('pipeline.role-naming-a-non-member-points-at-the-entry-with-a-hint', () => {
    expect(errorsOf('pipeline:', '  roles:', '    verify: [carol, alcie]')).toBe(
      'team.yaml:11:21 pipeline.roles.verify[1]: "alcie" is not a member of this team\n  hint: did you mean "alice"? members: lead, alice, carol',
    );
  });

  test('pipeline.unknown-role-and-bad-bounds-are-errors', () => {
    expect(errorsOf('pipeline:', '  roles: { deploy: [lead] }')).toContain('team.yaml:10:12 pipeline.roles.deploy: unknown key\n  hint: expected one of: plan, execute, test, verify, review');
    expect(errorsOf('pipeline:', '  max_parallel: 0')).toContain('team.yaml:10:17 pipeline.max_parallel:');
    expect(errorsOf('pipeline:', '  story_cap: { warn: 30, max: 20 }')).toContain('pipeline.story_cap.warn: warn 30 is larger than max 20\n  hint: make warn at most max');
  });

  test('pipeline.not-on-a-nats-store', () => {
    expect(errorsOf('store: nats://127.0.0.1:4222', 'pipeline: {}')).toBe(
      'team.yaml:9:8 store: a staged pipeline keeps its rules and state in the team folder, so it cannot run on a NATS store\n  hint: remove store: (the team folder is the default) or the pipeline: section',
    );
  });

  test('pipeline.init-with-a-nats-store-from-the-command-line-is-refused-before-connecting', async () => {
    const { file } = load('pipeline: {}');
    for (const [argv, env] of [[['--store', 'nats://127.0.0.1:1'], {}], [[], { TEAMUX_STORE: 'nats://127.0.0.1:1' }]] as const) {
      const r = await cli(['init', file, ...argv], { PATH: process.env.PATH ?? '', ...env });
      expect(r.code).toBe(1);
      expect(r.err).toBe(`teamux: ${file}: pipeline: a staged pipeline keeps its rules and state in the team folder, so it cannot run on the NATS store nats://127.0.0.1:1\n  hint: leave out --store (and unset TEAMUX_STORE) to use the team folder, or remove the pipeline: section\n`);
    }
  });
});
