/**
 * A large file of coloured text for throughput runs: log-like lines of mixed length (empty, short,
 * long enough to wrap) whose words carry SGR attributes: the 16 basic colours and bold, 256-colour
 * (38;5;n / 48;5;n) and truecolor (38;2;r;g;b) codes, resets, and now and then a multi-byte UTF-8
 * character. Deterministic (seeded PRNG), so every run cats the same bytes.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { prng } from './prng.mjs';

const WORDS = ['build', 'test', 'error', 'warning', 'ok', 'task', 'agent', 'claim', 'inbox', 'frame', 'pane', 'render', 'parse', 'flush', 'queue', 'src/app/multiplexer.ts', 'node_modules', '0x7ffd', '1234', 'passed', 'failed', 'request', 'response', 'tool_use', 'lead', 'alice', 'bob'];
const UNICODE = ['é', '→', '✓', '●', '─', 'ü', '日本'];

function sgr(rand) {
  const r = rand();
  if (r < 0.35) return `\x1b[${30 + Math.floor(rand() * 8)}m`;
  if (r < 0.5) return `\x1b[1;${90 + Math.floor(rand() * 8)}m`;
  if (r < 0.7) return `\x1b[38;5;${Math.floor(rand() * 256)}m`;
  if (r < 0.78) return `\x1b[48;5;${Math.floor(rand() * 256)}m`;
  if (r < 0.93) return `\x1b[38;2;${Math.floor(rand() * 256)};${Math.floor(rand() * 256)};${Math.floor(rand() * 256)}m`;
  return '\x1b[0m';
}

function line(rand) {
  const kind = rand();
  // 5% empty, 60% short (up to ~60 cols), 30% medium (up to ~120, wraps in an 80-column pane), 5% long (~300).
  const target = kind < 0.05 ? 0 : kind < 0.65 ? 10 + rand() * 50 : kind < 0.95 ? 60 + rand() * 60 : 200 + rand() * 120;
  let out = '';
  let visible = 0;
  while (visible < target) {
    if (rand() < 0.4) out += sgr(rand);
    const w = rand() < 0.03 ? UNICODE[Math.floor(rand() * UNICODE.length)] : WORDS[Math.floor(rand() * WORDS.length)];
    out += w + ' ';
    visible += w.length + 1;
  }
  return `${out}\x1b[0m\n`;
}

/** Write about `bytes` bytes of coloured text to `file`; returns { bytes, lines } actually written. */
export function writeColourText(file, bytes, seed = 20240611) {
  const rand = prng(seed);
  const fd = openSync(file, 'w');
  let written = 0;
  let lines = 0;
  try {
    while (written < bytes) {
      let chunk = '';
      while (chunk.length < 1 << 16) {
        chunk += line(rand);
        lines++;
      }
      const buf = Buffer.from(chunk, 'utf8');
      writeSync(fd, buf);
      written += buf.length;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes: written, lines };
}
