/**
 * A rough cost estimate for the status line: a small price table per model family (US dollars per
 * million tokens; cache reads at a tenth of input, cache writes at 1.25x). Unknown families show no
 * cost rather than a wrong one. An estimate only — the console bill is what counts. Pure, so the
 * agent, the hooks, the report and the sidebar all price and print usage the same way.
 */

/** Token counts of one call or of a member's life: input, output, cache reads and cache writes. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

interface Price {
  family: string;
  input: number;
  output: number;
}

const PRICES: readonly Price[] = [
  { family: 'opus', input: 5, output: 25 },
  { family: 'sonnet', input: 3, output: 15 },
  { family: 'haiku', input: 1, output: 5 },
];

/** The price row for a model id, by family name in the id. */
export function priceFor(model: string): Price | undefined {
  return PRICES.find((p) => model.includes(p.family));
}

/** Estimated dollars spent, or null when the model's family is not in the table. */
export function estimateCost(model: string, usage: UsageTotals): number | null {
  const p = priceFor(model);
  if (!p) return null;
  const inputEquivalent = usage.input + usage.cacheRead * 0.1 + usage.cacheWrite * 1.25;
  return (inputEquivalent * p.input + usage.output * p.output) / 1_000_000;
}

/** Dollars for display: $0.004 → "$0.00", $1.234 → "$1.23". */
export function formatUsd(dollars: number): string {
  return `$${dollars.toFixed(2)}`;
}

/** Token counts for display: 950 → "950", 1234 → "1.2k", 12345 → "12k", 2_500_000 → "2.5M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`.replace('.0k', 'k');
  return `${(n / 1_000_000).toFixed(1)}M`;
}
