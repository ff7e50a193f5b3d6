// Every write path of the store redacts the secrets it knows: the credentials in its environment,
// keys registered at run time (from a key file or command) and anything shaped like a key. The
// files stay valid JSON after redaction.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redact, registerSecret } from '../../src/store/redact.js';
import { makeTeam } from '../helpers/team.js';

const saved = process.env.ANTHROPIC_AUTH_TOKEN;
let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  if (saved === undefined) delete process.env.ANTHROPIC_AUTH_TOKEN;
  else process.env.ANTHROPIC_AUTH_TOKEN = saved;
});

describe('store redaction', () => {
  it('redact.patterns-keep-names-and-json', () => {
    expect(redact('use sk-ant-api03-abcdefghijklmnop now')).toBe('use [redacted] now');
    expect(redact('export ANTHROPIC_API_KEY="abc123xyz" && run')).toBe('export ANTHROPIC_API_KEY="[redacted]" && run');
    expect(JSON.parse(redact(JSON.stringify({ 'x-api-key': 'abcdefghij', h: 'Authorization: Bearer tok-123456789' })))).toEqual({ 'x-api-key': '[redacted]', h: 'Authorization: Bearer [redacted]' });
    // Words are not keys: a sentence about the variable keeps its words.
    expect(redact('no ANTHROPIC_API_KEY: agents use the demo model')).toBe('no ANTHROPIC_API_KEY: agents use the demo model');
    registerSecret('we"ird\\secret-42');
    expect(JSON.parse(redact(JSON.stringify({ t: 'a we"ird\\secret-42 b' })))).toEqual({ t: 'a [redacted] b' });
  });

  it('redact.every-store-write-path-drops-the-key', async () => {
    const t = await makeTeam(['amy']);
    cleanup = t.cleanup;
    const envKey = 'env-token-5566778899aabb';
    const fileKey = 'registered-key-00aa11bb22cc';
    process.env.ANTHROPIC_AUTH_TOKEN = envKey;
    registerSecret(fileKey);
    const both = `${envKey} and ${fileKey} and sk-ant-api03-zzzzzzzzzzzzzzzz`;
    const task = await t.store.tasks.create({ subject: `s ${both}`, description: both });
    expect(task.ok).toBe(true);
    await t.store.claim('amy', '1');
    await t.store.complete('amy', '1', `r ${both}`);
    await t.store.send({ from: 'amy', to: 'lead', type: 'message', text: both });
    await t.store.openRequest('plan_approval', 'amy', 'lead', `plan ${both}`);
    const cfg = await t.store.config();
    cfg.members[1]!.role = `role ${both}`;
    await t.store.writeConfig(cfg);
    t.store.log.info(`log ${both}`);
    let files = 0;
    for (const name of readdirSync(t.dir, { recursive: true }) as string[]) {
      const file = path.join(t.dir, name);
      if (!statSync(file).isFile()) continue;
      files++;
      const text = readFileSync(file, 'utf8');
      expect(text, name).not.toContain(envKey);
      expect(text, name).not.toContain(fileKey);
      expect(text, name).not.toMatch(/sk-ant-api03/);
      if (name.endsWith('.json')) expect(() => JSON.parse(text), name).not.toThrow();
      if (name.endsWith('.jsonl')) for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line), name).not.toThrow();
    }
    expect(files).toBeGreaterThan(6);
    expect((await t.store.tasks.get('1')).ok && (await t.store.tasks.get('1'))).toMatchObject({ value: { subject: 's [redacted] and [redacted] and [redacted]' } });
    expect(readFileSync(path.join(t.dir, 'teamux.log'), 'utf8')).toContain('log [redacted] and [redacted] and [redacted]');
  });
});
