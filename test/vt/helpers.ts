/**
 * Shared test helpers for the vt and pane-view tests: loading recorded byte streams from
 * test/fixtures/vt (NAME.bin + NAME.json with step offsets), an off-screen blessed screen that
 * renders into a string, and waiting on a condition with a deadline (never a bare sleep).
 */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable, PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import blessed, { type Widgets } from 'blessed';
import { PaneTerminal } from '../../src/vt/terminal.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'vt');

export interface Fixture {
  bytes: Uint8Array;
  cols: number;
  rows: number;
  steps: { name: string; send: string | null; offset: number }[];
}

/** A recorded byte stream and its metadata. */
export function loadFixture(name: string): Fixture {
  const meta = JSON.parse(readFileSync(join(fixtures, `${name}.json`), 'utf8')) as Omit<Fixture, 'bytes'>;
  return { ...meta, bytes: new Uint8Array(readFileSync(join(fixtures, `${name}.bin`))) };
}

/** The bytes of a fixture from the start up to the end of a named step. */
export function bytesThrough(fixture: Fixture, step: string): Uint8Array {
  const found = fixture.steps.find((s) => s.name === step);
  if (!found) throw new Error(`no step ${step}`);
  return fixture.bytes.subarray(0, found.offset);
}

/** A PaneTerminal of the fixture's size fed with the fixture through a step, fed in small chunks. */
export async function replay(name: string, step: string, chunk = 97): Promise<PaneTerminal> {
  const fixture = loadFixture(name);
  const term = new PaneTerminal({ cols: fixture.cols, rows: fixture.rows, scrollback: 1000 });
  const bytes = bytesThrough(fixture, step);
  for (let i = 0; i < bytes.length; i += chunk) term.write(bytes.subarray(i, i + chunk));
  await term.writeAsync('');
  return term;
}

/** Resolve once predicate() is true; reject after the deadline. */
export async function waitFor(predicate: () => boolean, timeoutMs = 2000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface Offscreen {
  screen: Widgets.Screen;
  /** Flush blessed's buffer and return what it wrote since the last take(). */
  take(): string;
  destroy(): void;
}

/** A blessed screen of cols x rows writing into a string instead of a terminal. */
export function offscreen(cols: number, rows: number, options: { fullUnicode?: boolean } = {}): Offscreen {
  let written = '';
  const input = new PassThrough();
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      written += chunk.toString();
      callback();
    },
  });
  Object.assign(output, { columns: cols, rows, isTTY: true });
  const screen = blessed.screen({
    input,
    output: output as unknown as NodeJS.WriteStream,
    terminal: 'xterm-256color',
    fullUnicode: options.fullUnicode ?? true,
    warnings: false,
  });
  const program = (screen as unknown as { program: { flush(): void } }).program;
  return {
    screen,
    take() {
      program.flush();
      const out = written;
      written = '';
      return out;
    },
    destroy() {
      screen.destroy();
      input.destroy();
    },
  };
}
