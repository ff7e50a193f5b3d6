/**
 * Source positions for paths into a parsed YAML document: given `teammates[1].name` (as a zod path)
 * find the line and column a person should look at. Values point at the value; unknown keys at the
 * key; a missing key at the map that lacks it; an empty value (`lead:`) at its key.
 */
import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';

/** A 1-based line and column. */
export interface SourcePos {
  line: number;
  col: number;
}

/** Whether to point at a map entry's key or at its value. */
export type PointAt = 'value' | 'key';

interface Ranged {
  range?: readonly [number, number, number] | null | undefined;
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

/** The position of `path` in `doc` (the deepest existing node on the way when the path runs out). */
export function locate(
  doc: Document,
  lineCounter: LineCounter,
  path: readonly PropertyKey[],
  at: PointAt = 'value',
): SourcePos {
  const posOf = (node: unknown): SourcePos => {
    const offset = (node as Ranged | null)?.range?.[0];
    return offset === undefined ? { line: 1, col: 1 } : lineCounter.linePos(offset);
  };
  let node: unknown = doc.contents;
  let keyNode: unknown;
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(doc) ?? node;
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(seg));
      if (!pair) return posOf(node);
      if (last && at === 'key') return posOf(pair.key);
      keyNode = pair.key;
      node = pair.value;
      if (node === null || node === undefined) return posOf(pair.key);
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (item === undefined || item === null) return posOf(node);
      keyNode = undefined;
      node = item;
    } else {
      break;
    }
  }
  if (keyNode !== undefined && isScalar(node) && node.value === null && !node.source) return posOf(keyNode);
  return posOf(node);
}
