/**
 * An outer terminal for a multiplexer under test: a node-pty of a fixed size (the multiplexer's
 * "real" terminal) whose output this process drains and feeds into an @xterm/headless emulator, so
 * we can ask what the user would see. Every output chunk is timestamped when it arrives; a wait
 * resolves with the arrival time of the chunk after whose parse the screen first satisfied the
 * condition, so the emulator's own (asynchronous) parse time never counts against the program
 * measured. Emulator replies (DA, DSR) go back into the pty, as a real terminal's would.
 */
import xtermHeadless from '@xterm/headless';
import pty from 'node-pty';
import { trackPid } from './cleanup.mjs';
import { clock } from './timing.mjs';

const { Terminal } = xtermHeadless;

/** What a screen condition is given: the visible text (computed once per check) and single cells. */
class ScreenView {
  constructor(term) {
    this.term = term;
    this.rows = null;
  }

  /** The visible rows as plain text. */
  lines() {
    if (!this.rows) {
      const b = this.term.buffer.active;
      this.rows = [];
      for (let y = 0; y < this.term.rows; y++) this.rows.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    }
    return this.rows;
  }

  /** The whole visible screen as one string, rows joined by newlines. */
  text() {
    return this.lines().join('\n');
  }

  /** The text of a rectangle, cell by cell (a wide character counts its two cells), rows right-trimmed. */
  region(left, top, width, height) {
    const b = this.term.buffer.active;
    const rows = [];
    for (let y = top; y < top + height; y++) {
      const line = b.getLine(b.viewportY + y);
      let text = '';
      for (let x = left; x < left + width; x++) {
        const cell = line?.getCell(x);
        if (cell && cell.getWidth() === 0) continue;
        text += cell?.getChars() || ' ';
      }
      rows.push(text.trimEnd());
    }
    return rows;
  }

  /** The character in the visible cell (x, y), '' when empty. */
  cell(x, y) {
    const b = this.term.buffer.active;
    return b.getLine(b.viewportY + y)?.getCell(x)?.getChars() ?? '';
  }
}

/** A pty driven by this process with an emulated screen. */
export class OuterTerminal {
  // process
  proc;
  exited;
  // screen and stream accounting
  term;
  bytes = 0;
  chunks = 0;
  lastChunkAt = 0;
  // pending screen conditions: { test, resolve, reject, timer }
  waiters = new Set();
  closed = false;
  // while holding, chunks are only recorded ({ data, at }) and parsed later by release();
  // hint: a string whose appearance in the raw bytes triggers an early parse
  held = null;
  hint = null;
  hintSeen = false;
  hintTail = '';

  /**
   * Spawn `command args` in a pty of cols x rows. With `emulate: false` the output is only counted
   * (the raw-read reference), not parsed.
   */
  constructor(command, args, { cols, rows, env, cwd, emulate = true }) {
    this.emulate = emulate;
    if (emulate) {
      this.term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
      this.term.onData((d) => this.proc?.write(d));
    }
    this.proc = pty.spawn(command, args, { name: 'xterm-256color', cols, rows, cwd, env, encoding: null });
    this.untrack = trackPid(this.proc.pid);
    this.exited = new Promise((resolve) => {
      this.proc.onExit((e) => {
        this.untrack();
        resolve({ ...e, at: clock() });
      });
    });
    this.proc.onData((data) => this.onChunk(data));
  }

  get pid() {
    return this.proc.pid;
  }

  onChunk(data) {
    const at = clock();
    this.bytes += data.length;
    this.chunks++;
    this.lastChunkAt = at;
    if (!this.emulate || this.closed) return;
    if (this.held) {
      this.held.push({ data, at });
      if (this.hint && !this.hintSeen) {
        const text = this.hintTail + data.toString('latin1');
        this.hintSeen = text.includes(this.hint);
        this.hintTail = text.slice(-this.hint.length);
      }
    } else {
      this.term.write(data, () => this.check(at));
    }
  }

  /**
   * Stop parsing output as it arrives: record it, with arrival times, for release() to parse later.
   * For heavy output, so that this process's emulator does not compete for CPU with the program
   * measured (a real terminal runs on its own core; this machine has two).
   */
  hold() {
    if (!this.held) this.held = [];
  }

  /** Parse everything recorded since hold(), in order, checking waiters after each chunk as live. */
  async release() {
    const held = this.held ?? [];
    this.held = null;
    const drained = () => new Promise((resolve) => this.term.write('', resolve));
    // In batches: xterm refuses writes once 50 MB are waiting to be parsed.
    let queued = 0;
    for (const { data, at } of held) {
      this.term.write(data, () => this.check(at));
      queued += data.length;
      if (queued > 8 * 2 ** 20) {
        await drained();
        queued = 0;
      }
    }
    await drained();
  }

  /**
   * With output on hold, wait until `test` holds: whenever the output has been quiet for quietMs (or
   * the `hint` string went by in the raw bytes, a shortcut only), parse what was recorded; if the
   * condition is not met yet, hold again and keep waiting. Resolves with the arrival time of the
   * chunk that made it true, as waitFor() does.
   */
  async waitForHeld(test, { quietMs, timeoutMs, what, hint = null }) {
    this.hold();
    this.hint = hint;
    this.hintSeen = false;
    this.hintTail = '';
    let done = null;
    const found = this.waitFor(test, timeoutMs, what).then((at) => (done = { at }), (err) => (done = { err }));
    while (!done) {
      // Parse when the output has gone quiet, or as soon as the hint went by in the raw bytes.
      const start = clock();
      while (!this.hintSeen && clock() - Math.max(this.lastChunkAt, start) < quietMs && clock() - start < timeoutMs) await sleep(5);
      this.hintSeen = false;
      await this.release();
      await new Promise((resolve) => setImmediate(resolve));
      if (!done) this.hold();
    }
    await found;
    if (done.err) throw done.err;
    return done.at;
  }

  check(at) {
    if (this.waiters.size === 0) return;
    const view = new ScreenView(this.term);
    for (const w of this.waiters) {
      let ok = false;
      try {
        ok = w.test(view);
      } catch (err) {
        this.settle(w, () => w.reject(err));
        continue;
      }
      if (ok) this.settle(w, () => w.resolve(at));
    }
  }

  settle(w, fn) {
    clearTimeout(w.timer);
    this.waiters.delete(w);
    fn();
  }

  /**
   * Resolve with the arrival time (clock()) of the chunk that made `test(view)` true; checked after
   * every parsed chunk. If it holds already, resolves with the current time. Rejects after timeoutMs.
   */
  waitFor(test, timeoutMs, what = 'screen condition') {
    const waiting = new Promise((resolve, reject) => {
      if (test(new ScreenView(this.term))) {
        resolve(clock());
        return;
      }
      const w = { test, resolve, reject, timer: null };
      w.timer = setTimeout(() => {
        this.waiters.delete(w);
        const screen = new ScreenView(this.term).lines().filter((l) => l.trim()).slice(-8).join('\n  ');
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; screen ends with:\n  ${screen}`));
      }, timeoutMs);
      this.waiters.add(w);
    });
    // A wait abandoned by a failing caller must not crash the run when stop() rejects it.
    waiting.catch(() => undefined);
    return waiting;
  }

  /** Wait until the screen shows every one of `strings`. */
  waitForText(strings, timeoutMs, what) {
    const list = Array.isArray(strings) ? strings : [strings];
    return this.waitFor((v) => {
      const t = v.text();
      return list.every((s) => t.includes(s));
    }, timeoutMs, what ?? `"${list.join('", "')}" on screen`);
  }

  /** Wait until no output has arrived for quietMs (or maxMs passed). */
  async waitQuiet(quietMs, maxMs = 5_000) {
    const start = clock();
    for (;;) {
      const idle = clock() - Math.max(this.lastChunkAt, start);
      if (idle >= quietMs || clock() - start > maxMs) return;
      await sleep(Math.max(1, quietMs - idle));
    }
  }

  /** The current screen (for one-off inspection). */
  screen() {
    return new ScreenView(this.term);
  }

  /** The outer cursor position. */
  cursor() {
    const b = this.term.buffer.active;
    return { x: b.cursorX, y: b.cursorY };
  }

  /** Type into the terminal. */
  write(data) {
    this.proc.write(data);
  }

  /** Signal the process; resolves when it is gone (SIGKILL after graceMs). */
  async stop(signal = 'SIGTERM', graceMs = 3_000) {
    try {
      this.proc.kill(signal);
    } catch {
      // gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(this.proc.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, graceMs);
    await this.exited;
    clearTimeout(timer);
    for (const w of this.waiters) this.settle(w, () => w.reject(new Error('terminal closed')));
    this.closed = true;
    this.term?.dispose();
  }
}

/** Resolve after ms. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
