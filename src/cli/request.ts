/**
 * `teamux request …` (list, approve, reject, open) and `teamux plan submit|status`: the request/response
 * protocols from the command line. Answers go through the state machine, so a duplicate or a
 * mismatched answer is refused with its reason. The CLI cannot sign, so it answers shutdown requests
 * only: plan decisions come from the teamux screen (C-a a / C-a r) or the lead agent's tools.
 */
import { gateAnchorAtStart, memberPlanStatus, untrustedReason } from '../agent/gate.js';
import { currentPlan } from '../protocol/requests.js';
import { OPERATOR } from '../protocol/trust.js';
import { refuse } from '../protocol/types.js';
import { EXIT_OK, actingAs, onePositional, openTeam, parse, report, TEAM_OPTIONS, UsageError } from './context.js';
import { dispatch, table } from './task.js';
import type { SubVerb, Verb } from './verb.js';

/** Answer a shutdown request as `--as` (default: TEAMUX_MEMBER, else the member it is addressed to). */
async function answer(ctx: Parameters<SubVerb['run']>[0], argv: string[], approve: boolean, usage: string): Promise<number> {
  const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' }, feedback: { type: 'string' }, reason: { type: 'string' } }, usage);
  const id = onePositional(positionals, 'request id', usage);
  const text = values.feedback ?? values.reason ?? '';
  if (!approve && !text.trim()) throw new UsageError('a rejection needs --feedback (or --reason) so the member knows what to change', `usage: ${usage}`);
  const store = await openTeam(ctx, values['team-dir']);
  const req = await store.requests.get(id);
  if (!req.ok) return report(ctx, values.json, req, () => '');
  if (req.value.type === 'plan_approval') {
    const how = req.value.to === OPERATOR ? 'approve or reject it from the teamux screen (select it, C-a a / C-a r)' : `${req.value.to} answers it with its approve_plan / reject_plan tools`;
    return report(ctx, values.json, refuse('unsigned', `${id} is a plan request: its answer must be signed, and the command line cannot sign (${how})`), () => '');
  }
  const by = ctx.env.TEAMUX_MEMBER ? actingAs(ctx, values.as) : values.as ?? req.value.to;
  const r = await store.answerRequest(id, by, approve, text);
  return report(ctx, values.json, r, (q) => `${q.type} request ${q.id} from ${q.from}: ${q.status}`);
}

const sub: SubVerb[] = [
  {
    name: 'list',
    usage: 'request list [--pending]',
    async run(ctx, argv) {
      const { values } = parse(argv, { ...TEAM_OPTIONS, pending: { type: 'boolean', default: false } }, this.usage);
      const store = await openTeam(ctx, values['team-dir']);
      const r = await store.requests.list();
      for (const p of r.problems) ctx.err(`teamux: skipped ${p.path}: ${p.message}`);
      const reqs = values.pending ? r.requests.filter((q) => q.status === 'pending') : r.requests;
      if (values.json) ctx.out(JSON.stringify({ ok: true, requests: reqs, problems: r.problems }));
      else ctx.out(reqs.length === 0 ? 'no requests' : table(['ID', 'TYPE', 'FROM', 'TO', 'STATUS', 'BODY'], reqs.map((q) => [q.id, q.type, q.from, q.to, q.status, q.body.replace(/\s+/g, ' ').slice(0, 60)])));
      return EXIT_OK;
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
      const r = await store.openRequest('shutdown', from, values.to, values.reason ?? 'shutting down');
      return report(ctx, values.json, r, (q) => `shutdown request ${q.id} sent to ${q.to}`);
    },
  },
];

export const requestVerb: Verb = {
  name: 'request',
  usage: sub.map((s) => s.usage),
  examples: ['teamux request list --pending', 'teamux request approve req-lx3k9-1a2b3c4d   (a shutdown request)', 'teamux request shutdown --from lead --to alice'],
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
      const me = await store.member(as);
      if (!me.ok) return report(ctx, values.json, me, () => '');
      const cfg = await store.config();
      const approver = me.value.planApprover ?? cfg.members.find((m) => m.kind === 'lead')?.name;
      if (!approver) throw new UsageError('this team has no lead to approve plans', 'set plan_approver in the layout');
      if (values.to !== undefined && values.to !== approver) {
        throw new UsageError(`--to ${values.to}: ${as}'s plans go to the configured approver, ${approver}`, 'leave out --to (plan_approver in the layout decides who approves)');
      }
      const r = await store.openRequest('plan_approval', as, approver, text);
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
      const me = await store.member(as);
      if (!me.ok) return report(ctx, values.json, me, () => '');
      const cfg = await store.config();
      const anchor = gateAnchorAtStart(ctx.env, me.value, cfg, cfg.members.find((m) => m.kind === 'lead')?.name ?? '');
      const requests = (await store.requests.list()).requests;
      const last = currentPlan(requests, as, anchor.run) ?? null;
      // Without a trust key nothing can be checked: report what is recorded, marked unverified.
      const verified = anchor.trust !== null;
      const status = verified ? memberPlanStatus(anchor, requests) : !anchor.planRequired ? 'not_required' : last?.status === 'expired' || !last ? 'not_submitted' : last.status;
      const why = verified ? (status === 'unverified' ? untrustedReason(anchor, requests) : null) : 'no TEAMUX_TRUST_KEY: signatures not checked';
      if (values.json) ctx.out(JSON.stringify({ ok: true, status, verified: verified && status !== 'unverified', unverifiedReason: why, request: last }));
      else ctx.out(`${as}: plan ${status}${why ? (status === 'unverified' ? ` (${why})` : ` (unverified: ${why})`) : ''}${last?.response?.text ? ` — ${last.response.text}` : ''}`);
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
