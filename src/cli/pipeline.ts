/**
 * `teamux pipeline show|retry`: where a staged pipeline stands (status, stage, wave, fix round of its
 * bound, each story with its status and why it is blocked, the verdicts), and the lead's retry of
 * blocked stories through the shared op (src/ops/pipeline.ts), so the CLI, teamux's lead agent and
 * the MCP tool behave alike. A retry acts as `--as NAME` (else $TEAMUX_MEMBER, else the person at
 * the command line, recorded as "human"); a refused retry exits 3 with its reason.
 */
import { retryStory } from '../ops/pipeline.js';
import { currentWave } from '../protocol/pipeline.js';
import { StoryId } from '../protocol/pipeline-fields.js';
import { visible } from '../protocol/visible.js';
import { actingAs, openTeam, opContext, parse, report, TEAM_OPTIONS, UsageError } from './context.js';
import { dispatch } from './task.js';
import type { SubVerb, Verb } from './verb.js';

const subs: SubVerb[] = [
  {
    name: 'show',
    usage: 'pipeline show [--team-dir DIR] [--json]',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, TEAM_OPTIONS, this.usage);
      if (positionals.length) throw new UsageError(`unexpected argument "${visible(positionals[0]!)}"`, `usage: ${this.usage}`);
      const store = await openTeam(ctx, values['team-dir']);
      if (!store.pipeline.active()) return report(ctx, values.json, { ok: false, reason: 'not_found', message: `the team at ${store.dir} is not a pipeline (its layout has no pipeline: section)` }, () => '');
      const view = await store.pipeline.load();
      return report(ctx, values.json, view, ({ settings, state }) => {
        const lines = [
          `pipeline ${state.status} at ${state.stage}${state.stoppedReason ? ` — ${visible(state.stoppedReason)}` : ''}`,
          `wave ${currentWave(state)}/${Math.max(0, ...state.stories.map((s) => s.wave))} · fix round ${state.fixRound - state.fixBase}/${settings.maxFixRounds}${state.fixBase ? ` (${state.fixBase} before the last retry)` : ''} · max_parallel ${settings.maxParallel}`,
          ...state.stories.map((s) => `  ${s.id.padEnd(8)} ${s.status.padEnd(8)} wave ${s.wave}  ${visible(s.subject)}${s.reason ? ` — ${visible(s.reason)}` : ''}`),
          ...state.verdicts.map((v) => `  verdict ${v.verdict} by ${visible(v.by)} in round ${v.round} (task ${v.task}, ${v.findings.length} finding${v.findings.length === 1 ? '' : 's'})`),
        ];
        return lines.join('\n');
      });
    },
  },
  {
    name: 'retry',
    usage: 'pipeline retry [STORY...] [--reason TEXT] [--as NAME] [--team-dir DIR] [--json]',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, reason: { type: 'string' }, as: { type: 'string' } }, this.usage);
      for (const p of positionals) {
        if (!StoryId.safeParse(p).success) throw new UsageError(`"${visible(p)}" is not a story id`, 'story ids are lowercase letters, digits, - and _, like s1 (teamux pipeline show lists them)');
      }
      const who = values.as !== undefined || ctx.env.TEAMUX_MEMBER ? actingAs(ctx, values.as) : null;
      const octx = await opContext(await openTeam(ctx, values['team-dir']), who);
      const r = octx.ok ? await retryStory.run({ stories: positionals, reason: values.reason }, octx.value) : octx;
      return report(ctx, values.json, r, (v) => visible(retryStory.text(v)), r.ok ? undefined : hintFor(r.reason));
    },
  },
];

function hintFor(reason: string): string | undefined {
  if (reason === 'stage_order') return 'a story is retried while exec or fix runs, or once the pipeline has ended (teamux pipeline show)';
  if (reason === 'not_found' || reason === 'illegal_transition') return 'teamux pipeline show lists the stories and why each is blocked';
  return undefined;
}

export const pipelineVerb: Verb = {
  name: 'pipeline',
  usage: subs.map((s) => s.usage),
  examples: ['teamux pipeline show', 'teamux pipeline retry s2 --reason "the flaky fixture is fixed"', 'teamux pipeline retry --json'],
  run: (ctx, argv) => dispatch('pipeline', subs, ctx, argv.length === 0 ? ['show'] : argv),
};
