/**
 * File tools: read, write, exact-match edit, and list. Relative paths resolve against the member's
 * working directory. Output is bounded (a note says what was cut), and every failure a model can
 * cause — a missing file, an edit string that is absent or ambiguous — is an error result.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from '../../protocol/zod.js';
import { defineTool, fail, ok, oneLine, type AnyTool } from './types.js';

/** The most characters a read returns before cutting. */
export const READ_LIMIT_CHARS = 100_000;
const LIST_SKIP = new Set(['.git', 'node_modules']);

/** Resolve a tool path against the working directory. */
export function resolvePath(cwd: string, p: string): string {
  return path.resolve(cwd, p);
}

/** Read a file for a tool, or say why it cannot be read. */
async function readText(cwd: string, p: string): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  try {
    return { ok: true, text: await fsp.readFile(resolvePath(cwd, p), 'utf8') };
  } catch (err) {
    return { ok: false, error: `cannot read ${p}: ${errText(err)}` };
  }
}

function errText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file or directory';
  if (e.code === 'EISDIR') return 'is a directory';
  if (e.code === 'ENOTDIR') return 'a part of the path is not a directory';
  if (e.code === 'EACCES') return 'permission denied';
  return e.message;
}

export const readFile = defineTool({
  name: 'read_file',
  description: 'Read a text file. Optionally start at line `offset` (1-based) and read `limit` lines.',
  input: z.strictObject({
    path: z.string().min(1).describe('file path, relative to your working directory or absolute'),
    offset: z.number().int().min(1).optional().describe('first line to read (1-based)'),
    limit: z.number().int().min(1).optional().describe('how many lines to read'),
  }),
  summary: (i) => i.path + (i.offset ? `:${i.offset}` : ''),
  async run(i, ctx) {
    const read = await readText(ctx.cwd, i.path);
    if (!read.ok) return fail(read.error);
    let text = read.text;
    if (i.offset !== undefined || i.limit !== undefined) {
      const lines = text.split('\n');
      const from = (i.offset ?? 1) - 1;
      text = lines.slice(from, i.limit === undefined ? undefined : from + i.limit).join('\n');
    }
    if (text.length > READ_LIMIT_CHARS) {
      return ok(`${text.slice(0, READ_LIMIT_CHARS)}\n[truncated: ${text.length - READ_LIMIT_CHARS} more characters; read on with offset/limit]`);
    }
    return ok(text === '' ? '(empty file)' : text);
  },
});

export const writeFile = defineTool({
  name: 'write_file',
  description: 'Create or replace a file with the given content (parent folders are created).',
  input: z.strictObject({
    path: z.string().min(1).describe('file path, relative to your working directory or absolute'),
    content: z.string().describe('the whole new content of the file'),
  }),
  summary: (i) => `${i.path} (${i.content.length} chars)`,
  async run(i, ctx) {
    const file = resolvePath(ctx.cwd, i.path);
    try {
      await fsp.mkdir(path.dirname(file), { recursive: true });
      await fsp.writeFile(file, i.content, 'utf8');
    } catch (err) {
      return fail(`cannot write ${i.path}: ${errText(err)}`);
    }
    return ok(`wrote ${i.path} (${Buffer.byteLength(i.content)} bytes)`);
  },
});

export const editFile = defineTool({
  name: 'edit_file',
  description: 'Replace one exact occurrence of old_string with new_string in a file. old_string must occur exactly once: include enough context to make it unique.',
  input: z.strictObject({
    path: z.string().min(1),
    old_string: z.string().min(1).describe('text to replace, exactly as it appears in the file'),
    new_string: z.string().describe('replacement text'),
  }),
  summary: (i) => `${i.path}: ${oneLine(i.old_string, 40)}`,
  async run(i, ctx) {
    const file = resolvePath(ctx.cwd, i.path);
    const read = await readText(ctx.cwd, i.path);
    if (!read.ok) return fail(read.error);
    const text = read.text;
    const first = text.indexOf(i.old_string);
    if (first < 0) return fail(`old_string was not found in ${i.path}; read the file and copy the text exactly`);
    if (text.indexOf(i.old_string, first + 1) >= 0) {
      const count = text.split(i.old_string).length - 1;
      return fail(`old_string occurs ${count} times in ${i.path}; include more surrounding text so it is unique`);
    }
    const next = text.slice(0, first) + i.new_string + text.slice(first + i.old_string.length);
    try {
      await fsp.writeFile(file, next, 'utf8');
    } catch (err) {
      return fail(`cannot write ${i.path}: ${errText(err)}`);
    }
    const line = text.slice(0, first).split('\n').length;
    return ok(`edited ${i.path} at line ${line}`);
  },
});

export const listFiles = defineTool({
  name: 'list_files',
  description: 'List a folder (folders end in /). With recursive, walks below it, skipping .git and node_modules.',
  input: z.strictObject({
    path: z.string().default('.'),
    recursive: z.boolean().default(false),
    max: z.number().int().min(1).max(5000).default(500).describe('most entries to return'),
  }),
  summary: (i) => `${i.path}${i.recursive ? ' (recursive)' : ''}`,
  async run(i, ctx) {
    const root = resolvePath(ctx.cwd, i.path);
    const out: string[] = [];
    let more = false;
    const walk = async (dir: string, rel: string): Promise<void> => {
      const entries = (await fsp.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
      for (const e of entries) {
        if (out.length >= i.max) {
          more = true;
          return;
        }
        const name = rel ? `${rel}/${e.name}` : e.name;
        out.push(e.isDirectory() ? `${name}/` : name);
        if (i.recursive && e.isDirectory() && !LIST_SKIP.has(e.name)) await walk(path.join(dir, e.name), name);
      }
    };
    try {
      await walk(root, '');
    } catch (err) {
      return fail(`cannot list ${i.path}: ${errText(err)}`);
    }
    if (out.length === 0) return ok(`(${i.path} is empty)`);
    return ok(out.join('\n') + (more ? `\n[stopped at ${i.max} entries]` : ''));
  },
});

/** The file tools. */
export const FILE_TOOLS: AnyTool[] = [readFile, writeFile, editFile, listFiles];
