/**
 * `teamux request …` (list, approve, reject, open) and `teamux plan submit|status`: the request/response
 * protocols from the command line, through the shared ops (src/ops/requests.ts). Answers go through
 * the state machine, so a duplicate or a mismatched answer is refused with its reason. The CLI has no
 * signing key, so a plan request's answer is refused (`unsigned`): plans are answered on the teamux
 * screen (C-a a / C-a r) or by the lead; so is a Claude Code member's permission request, which only
 * the operator answers, on the screen (a member's own shell could run this CLI). Plan status checks signatures with the screen's key
 * from the environment (TEAMUX_TRUST_KEY), else reports the recorded status marked unverified.
 */
import { actor } from '../ops/op.js';
import { gateAnchorAtStart } from '../protocol/plan-gate.js';
import { planStatusOp, requestShutdown, respondShutdown, submitPlan, unsignedRefusal } from '../ops/requests.js';
import { permissionUnsigned } from '../protocol/requests.js';
import { accept, type Outcome, type ProtocolRequest } from '../protocol/types.js';
import { visible } from '../protocol/visible.js';
import { escapeControls } from '../ui/markdown.js';
import { EXIT_OK, actingAs, onePositional, openTeam, parse, report, TEAM_OPTIONS, UsageError } from './context.js';
import { dispatch, runAs, table } from './task.js';
import type { SubVerb, Verb } from './verb.js';

/** Answer a request as `--as` (default: TEAMUX_MEMBER, else the member it is addressed to). */
async function answer(ctx: Parameters<SubVerb['run']>[0], argv: string[], approve: boolean, usage: string): Promise<number> {
  const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' }, feedback: { type: 'string' }, reason: { type: 'string' } }, usage);
  const id = onePositional(positionals, 'request id', usage);
  const text = values.feedback ?? values.reason ?? '';
  if (!approve && !text.trim()) throw new UsageError('a rejection needs --feedback (or --reason) so the member knows what to change', `usage: ${usage}`);
  const store = await openTeam(ctx, values['team-dir']);
  const req = await store.requests.get(id);
  if (!req.ok) return report(ctx, values.json, req, () => '');
  // The command line has no signing key: a plan answer from it would not count.
  if (req.value.type === 'plan_approval') return report(ctx, values.json, unsignedRefusal(id, req.value.to), () => '');
  // A Claude Code member's permission request is the operator's alone, signed by the screen: any
  // process of this user could run this command, the member asking included.
  if (req.value.type === 'permission') return report(ctx, values.json, permissionUnsigned(id), () => '');
  const by = ctx.env.TEAMUX_MEMBER ? actingAs(ctx, values.as) : values.as ?? req.value.to;
  // What is left is a shutdown request (plan and permission answers were refused above).
  const r = await runAs(store, by, async (octx): Promise<Outcome<ProtocolRequest>> => {
    const a = await respondShutdown.run({ request_id: id, approve, reason: text }, octx);
    return a.ok ? accept(a.value.request) : a;
  });
  return report(ctx, values.json, r, (q) => `${q.type} request ${q.id} from ${q.from}: ${q.status}`);
}

/** A request in full for a person: header lines, then the body, control characters shown escaped. */
function showRequest(q: ProtocolRequest): string {
  const lines = [
    `${q.id}: ${q.type} request from ${q.from} to ${q.to}, ${q.status}`,
    `opened ${q.createdAt}${q.resolvedAt ? `, closed ${q.resolvedAt}` : ''}`,
  ];
  if (q.response) lines.push(`answered by ${q.response.by}: ${q.response.approve ? 'approved' : 'rejected'}${q.response.text ? ` — ${q.response.text}` : ''}`);
  lines.push('', q.body || '(no text)');
  return escapeControls(lines.join('\n'));
}

const sub: SubVerb[] = [
  {
    name: 'list',
    usage: 'request list [--pending]',
    async run(ctx, argv) {
      const { values } = parse(argv, { ...TEAM_OPTIONS, pending: { type: 'boolean', default: false } }, this.usage);
      const store = await openTeam(ctx, values['team-dir']);
      const r = await store.requests.list();
      for (const p of r.problems) ctx.err(`teamux: skipped ${visible(p.path)}: ${visible(p.message)}`);
      const reqs = values.pending ? r.requests.filter((q) => q.status === 'pending') : r.requests;
      if (values.json) ctx.out(JSON.stringify({ ok: true, requests: reqs, problems: r.problems }));
      else ctx.out(reqs.length === 0 ? 'no requests' : table(['ID', 'TYPE', 'FROM', 'TO', 'STATUS', 'BODY'], reqs.map((q) => [q.id, q.type, q.from, q.to, q.status, q.body.replace(/\s+/g, ' ').slice(0, 60)])));
      return EXIT_OK;
    },
  },
  {
    name: 'show',
    usage: 'request show ID',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...TEAM_OPTIONS }, this.usage);
      const id = onePositional(positionals, 'request id', this.usage);
      const store = await openTeam(ctx, values['team-dir']);
      const r = await store.requests.get(id);
      return report(ctx, values.json, r, (q) => showRequest(q));
    },
  },
  { name: 'approve', usage: 'request approve ID [--feedback T] [--as NAME]', run(ctx, argv) { return answer(ctx, argv, true, this.usage); } },
  { name: 'reject', usage: 'request reject ID --feedback T [--as NAME]', run(ctx, argv) { return answer(ctx, argv, false, this.usage); } },
  {
    name: 'shutdown',
    usage: 'request shutdown --from LEAD --to NAME [--reason R]',
    async run(ctx, argv) {
      const { values } = parse(argv, { ...TEAM_OPTIONS, from: { type: 'string' }, to: { type: 'string' }, reason: { type: 'string' } }, this.usage);
      const from = actingAs(ctx, values.from, '--from');
      if (!values.to) throw new UsageError('missing --to', `usage: ${this.usage}`);
      const store = await openTeam(ctx, values['team-dir']);
      const to = values.to;
      const r = await runAs(store, from, (octx) => requestShutdown.run({ to, reason: values.reason ?? 'shutting down' }, octx));
      return report(ctx, values.json, r, (q) => `shutdown request ${q.id} sent to ${q.to}`);
    },
  },
];

export const requestVerb: Verb = {
  name: 'request',
  usage: sub.map((s) => s.usage),
  examples: ['teamux request list --pending', 'teamux request show req-lx3k9-1a2b3c4d', 'teamux request approve req-lx3k9-1a2b3c4d   (a shutdown request)', 'teamux request reject req-lx3k9-1a2b3c4d --feedback "not now"   (a shutdown request)', 'teamux request shutdown --from lead --to alice'],
  run: (ctx, argv) => dispatch('request', sub, ctx, argv),
};

const planSub: SubVerb[] = [
  {
    name: 'submit',
    usage: 'plan submit --as NAME TEXT',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' }, to: { type: 'string' } }, this.usage);
      const as = actingAs(ctx, values.as);
      const text = positionals.join(' ');
      if (!text.trim()) throw new UsageError('missing plan text', `usage: ${this.usage}`);
      const store = await openTeam(ctx, values['team-dir']);
      // Plans go to the configured approver; --to is accepted only when it names that approver.
      const r = await runAs(store, as, (octx) => {
        const approver = actor(octx).planApprover ?? octx.team.members.find((m) => m.kind === 'lead')?.name;
        if (values.to !== undefined && values.to !== approver) {
          throw new UsageError(`--to ${values.to}: ${as}'s plans go to the configured approver, ${approver ?? 'the lead'}`, 'leave out --to (plan_approver in the layout decides who approves)');
        }
        return submitPlan.run({ plan: text }, octx);
      });
      return report(ctx, values.json, r, (q) => `plan request ${q.id} sent to ${q.to}`);
    },
  },
  {
    name: 'status',
    usage: 'plan status --as NAME',
    async run(ctx, argv) {
      const { values } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' } }, this.usage);
      const as = actingAs(ctx, values.as);
      const store = await openTeam(ctx, values['team-dir']);
      const got = await runAs(store, as, (octx) => {
        const lead = octx.team.members.find((m) => m.kind === 'lead')?.name ?? '';
        return planStatusOp.run({}, { ...octx, anchor: gateAnchorAtStart(ctx.env, actor(octx), octx.team, lead) });
      });
      if (!got.ok) return report(ctx, values.json, got, () => '');
      const { status, request: last, verified, unverifiedReason: why } = got.value;
      if (values.json) ctx.out(JSON.stringify({ ok: true, status, verified, unverifiedReason: why, request: last }));
      else ctx.out(`${as}: plan ${status}${why ? (status === 'unverified' ? ` (${visible(why)})` : ` (unverified: ${visible(why)})`) : ''}${last?.response?.text ? ` — ${visible(last.response.text)}` : ''}`);
      return EXIT_OK;
    },
  },
];

export const planVerb: Verb = {
  name: 'plan',
  usage: planSub.map((s) => s.usage),
  examples: ['teamux plan submit --as alice "1. read the code 2. write the parser 3. add tests"', 'teamux plan status --as alice --json'],
  run: (ctx, argv) => dispatch('plan', planSub, ctx, argv),
};
