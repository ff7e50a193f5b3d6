// What the bundled examples leave in the checkout is ignored by git: every file a demo script writes
// (write_file / Write paths, and what a Bash or bash step touches), relative to the example's folder,
// and the team folders themselves. A new example that writes elsewhere fails here until .gitignore
// covers it.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from '../helpers/team.js';

/** Every path a script's tool calls write to, relative to the example folder. */
function written(script: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const tool = o.tool_use as { name?: string; input?: Record<string, unknown> } | undefined;
      if (tool?.input) {
        for (const k of ['path', 'file_path']) if (typeof tool.input[k] === 'string') out.push(tool.input[k] as string);
        const cmd = tool.input.command;
        if (typeof cmd === 'string') for (const m of cmd.matchAll(/\btouch\s+(\S+)/g)) out.push(m[1]!);
      }
      Object.values(o).forEach(walk);
    }
  };
  walk(script);
  return out;
}

describe('the examples leave nothing git sees', () => {
  it('examples.every-file-a-demo-script-writes-is-gitignored', () => {
    const examples = path.join(REPO, 'examples');
    const paths: string[] = [];
    for (const ex of readdirSync(examples)) {
      paths.push(path.join('examples', ex, '.teamux', ex, 'team.json'));
      let scripts: string[] = [];
      try {
        scripts = readdirSync(path.join(examples, ex, 'scripts')).filter((f) => f.endsWith('.yaml'));
      } catch {
        continue;
      }
      for (const f of scripts) {
        for (const p of written(parse(readFileSync(path.join(examples, ex, 'scripts', f), 'utf8')))) {
          if (!path.isAbsolute(p)) paths.push(path.join('examples', ex, p));
        }
      }
    }
    expect(paths.length).toBeGreaterThan(10);
    // check-ignore prints the paths it ignores; --no-index judges them whether or not they exist.
    let ignored = '';
    try {
      ignored = execFileSync('git', ['check-ignore', '--no-index', ...paths], { cwd: REPO, encoding: 'utf8' });
    } catch (e) {
      ignored = (e as { stdout?: string }).stdout ?? '';
    }
    const notIgnored = paths.filter((p) => !ignored.split('\n').includes(p));
    expect(notIgnored).toEqual([]);
  });
});
