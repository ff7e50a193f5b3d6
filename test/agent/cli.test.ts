/**
 * `teamux agent` as a command: it is listed in the verb table; flags and TEAMUX_* variables reach
 * the model request; user mistakes are one-line errors with exit code 1; with neither a key nor a
 * demo server the member says so, stays idle and still answers a shutdown request. Option and
 * endpoint resolution are pure and tested directly.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, endpointFor, resolveOptions } from '../../src/agent/options.js';
import { agentTeam, bodyOf, callsOf, scripted, waitFor } from './helpers.js';
import { agentVerbRegistered, exited, startMember, teamuxBin } from './process.js';

function baseEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TEAMUX_TEAM_DIR: dir };
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'TEAMUX_DEMO_URL', 'TEAMUX_MEMBER', 'TEAMUX_AGENT_MODEL', 'TEAMUX_AGENT_SYSTEM_PROMPT']) delete env[k];
  return env;
}

describe('cli', () => {
  it('cli.the-agent-verb-is-in-the-verb-table', async () => {
    expect(await agentVerbRegistered(), 'src/cli/table.ts must list agentVerb from src/cli/agent.ts').toBe(true);
  });

  it('cli.flags-and-env-reach-the-request', async () => {
    const { store, dir, root } = await agentTeam(['alice']);
    writeFileSync(path.join(root, 'prompt.md'), 'Always answer in haiku.');
    const server = await scripted({ alice: { steps: [{ reply: [{ text: 'Autumn moonlight.' }] }] } });
    const env = { ...baseEnv(dir), TEAMUX_DEMO_URL: server.url, TEAMUX_MEMBER: 'alice' };
    const alice = startMember(await teamuxBin(), ['agent', '--model', 'claude-haiku-5-5', '--max-tokens', '1000', '--system-prompt-file', 'prompt.md', '--prompt', 'Say something.'], env, root, 'alice');
    await waitFor(() => alice.out.includes('Autumn moonlight.'), 'the reply', 15_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${alice.out}`);
    });
    const call = callsOf(server, 'alice')[0]!;
    const body = bodyOf(call) as ReturnType<typeof bodyOf> & { model: string; max_tokens: number };
    expect([body.model, body.max_tokens]).toEqual(['claude-haiku-5-5', 1000]);
    expect(body.system).toContain('Instructions for this member:\nAlways answer in haiku.');
    expect(body.messages[0]!.content).toEqual([{ type: 'text', text: 'Say something.' }]);
    expect(call.headers['x-teamux-member']).toBe('alice');
    expect(alice.out).toContain('DEMO alice');
    await store.openRequest('shutdown', 'lead', 'alice', 'done');
    expect(await exited(alice, 10_000)).toBe(0);
  });

  it('cli.without-a-key-or-demo-server-the-member-waits-and-still-answers', async () => {
    const { store, dir, root } = await agentTeam(['alice']);
    const alice = startMember(await teamuxBin(), ['agent', '--as', 'alice'], baseEnv(dir), root, 'alice');
    await waitFor(() => alice.out.includes('idle (no API key)'), 'the idle pane', 15_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${alice.out}`);
    });
    expect(alice.out).toContain('no ANTHROPIC_API_KEY is set, so this agent cannot call a model');
    await store.openRequest('shutdown', 'lead', 'alice', 'done');
    expect(await exited(alice, 10_000)).toBe(0);
  });

  it('cli.user-mistakes-are-one-line-errors', async () => {
    const { dir, root } = await agentTeam(['alice']);
    const bin = await teamuxBin();
    const run = async (args: string[]) => {
      const p = startMember(bin, args, baseEnv(dir), root);
      return { code: await exited(p, 30_000), out: p.out };
    };
    const cases: [string[], RegExp][] = [
      [['agent'], /say who is acting with --as NAME/],
      [['agent', '--as', 'carol'], /"carol" is not a member of this team/],
      [['agent', '--as', 'alice', '--max-tokens', 'lots'], /--max-tokens "lots" is not a positive whole number/],
      [['agent', '--as', 'alice', '--system-prompt-file', 'nope.md'], /cannot read --system-prompt-file .*nope\.md: ENOENT/],
      [['agent', '--as', 'alice', '--bogus'], /Unknown option '--bogus'/],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(1);
      expect(r.out, cases[i]![0].join(' ')).toMatch(cases[i]![1]);
      expect(r.out).not.toMatch(/\n\s+at /);
    });
  });
});

describe('options (pure)', () => {
  it('options.flags-then-env-then-defaults', () => {
    const base = { name: 'alice', cwd: '/w', isLead: false, demo: false };
    const d = resolveOptions(base, {}, 't');
    expect(d.ok && [d.options.model, d.options.maxTokens, d.options.compactAt, d.options.kickoff, d.options.autoClaim]).toEqual([DEFAULT_MODEL, 8192, 150_000, null, false]);
    const e = resolveOptions(base, { TEAMUX_AGENT_MODEL: 'claude-opus-5-5', TEAMUX_AGENT_COMPACT_AT: '90000' }, 't');
    expect(e.ok && [e.options.model, e.options.compactAt]).toEqual(['claude-opus-5-5', 90_000]);
    const f = resolveOptions({ ...base, model: 'claude-haiku-5-5', systemPrompt: 'from a flag' }, { TEAMUX_AGENT_MODEL: 'claude-opus-5-5', TEAMUX_AGENT_SYSTEM_PROMPT: 'from the layout' }, 't');
    expect(f.ok && [f.options.model, f.options.systemPrompt]).toEqual(['claude-haiku-5-5', 'from a flag']);
    const g = resolveOptions(base, { TEAMUX_AGENT_SYSTEM_PROMPT: 'from the layout' }, 't');
    expect(g.ok && g.options.systemPrompt).toBe('from the layout');
    const lead = resolveOptions({ ...base, isLead: true }, {}, 'demo');
    expect(lead.ok && lead.options.kickoff).toContain('lead of team "demo"');
    expect(resolveOptions({ ...base, compactAt: '-1' }, {}, 't')).toMatchObject({ ok: false });
  });

  it('options.endpoint-demo-key-or-none', () => {
    expect(endpointFor({ TEAMUX_DEMO_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'sk' }, 'bob')).toEqual({ ok: true, baseURL: 'http://127.0.0.1:9', apiKey: 'demo', headers: { 'x-teamux-member': 'bob' }, demo: true });
    expect(endpointFor({ ANTHROPIC_API_KEY: 'sk-1', ANTHROPIC_BASE_URL: 'https://proxy' }, 'bob')).toEqual({ ok: true, baseURL: 'https://proxy', apiKey: 'sk-1', headers: {}, demo: false });
    expect(endpointFor({}, 'bob')).toMatchObject({ ok: false, reason: expect.stringContaining('no ANTHROPIC_API_KEY') });
  });
});
