/**
 * Scratch layout files for the config tests: each test writes YAML into a fresh temporary folder and
 * gets the file's path back; everything is removed when the test file ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new empty folder under the system temp dir, removed after the test file. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamux-config-'));
  made.push(dir);
  return dir;
}

/** Writes `yaml` to `<new temp dir>/<name>` and returns the file's path. */
export function writeLayout(yaml: string, name = 'team.yaml'): string {
  const file = path.join(tempDir(), name);
  fs.writeFileSync(file, yaml);
  return file;
}

/** Joins lines, so a test's YAML reads top to bottom with line numbers easy to count. */
export function lines(...ls: string[]): string {
  return `${ls.join('\n')}\n`;
}
