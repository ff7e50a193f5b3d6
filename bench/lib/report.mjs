/**
 * Printing benchmark results: the machine they ran on, aligned tables, numbers, ratios and
 * PASS/MISS verdicts against a target. Output is plain text, one table per section.
 */
import { readFileSync } from 'node:fs';
import * as os from 'node:os';

/** One line describing the machine and runtime. */
export function machineLine() {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim().replace(/\s+/g, ' ') ?? 'unknown cpu';
  const files = openFileLimit();
  return `machine: ${cpus.length} CPU(s) (${model}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.platform()} ${os.release()}, node ${process.version}${files ? `, open-file limit ${files}` : ''}`;
}

/** The soft limit on open files (Linux /proc only), or null. */
export function openFileLimit() {
  try {
    const m = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? m[1] : null;
  } catch {
    return null;
  }
}

/** A number with a sensible precision and thousands separators. */
export function num(x, digits) {
  if (!Number.isFinite(x)) return String(x);
  const d = digits ?? (Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2);
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

/** A rate as "1,234 /s". */
export function rate(x) {
  return `${num(x)} /s`;
}

/** Milliseconds as "1.23 ms". */
export function ms(x) {
  return `${num(x)} ms`;
}

/** a / b as "0.42x". */
export function ratio(a, b) {
  return b === 0 ? 'n/a' : `${num(a / b, 2)}x`;
}

/** PASS when `value` meets `target` (at least, or at most when lowerIsBetter), else MISS. */
export function verdict(value, target, lowerIsBetter = false) {
  const ok = lowerIsBetter ? value <= target : value >= target;
  return ok ? 'PASS' : 'MISS';
}

/** Format rows under a header as aligned columns; numbers-looking cells are right-aligned. */
export function formatTable(head, rows) {
  const all = [head, ...rows].map((r) => r.map((c) => (c === undefined || c === null ? '' : String(c))));
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const right = head.map((_, i) => rows.length > 0 && rows.every((r) => /^[-+]?[\d,.]+( ?[a-z/%]+)?$/i.test(String(r[i] ?? '')) || r[i] === '' || r[i] === undefined));
  const line = (r) => r.map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(all[0]), rule, ...all.slice(1).map(line)].join('\n');
}

/** Print a titled table to stdout. */
export function printTable(title, head, rows) {
  process.stdout.write(`\n${title}\n${formatTable(head, rows)}\n`);
}
