/**
 * The web view's link as a QR code a phone can scan from the person's terminal: the modules two rows
 * per text row in half blocks (▀ ▄ █), to be drawn dark on light, with the quiet zone the standard
 * asks for (uqr encodes it). Pure.
 */
import { encode } from 'uqr';

/** The rows of text drawing `text`'s QR code; `true` modules are the dark ones (drawn as the foreground). */
export function qrRows(text: string): string[] {
  const { data } = encode(text, { ecc: 'L', border: 2 });
  const rows: string[] = [];
  for (let y = 0; y < data.length; y += 2) {
    let line = '';
    for (let x = 0; x < data.length; x++) {
      const top = data[y]![x]!;
      const bottom = data[y + 1]?.[x] ?? false;
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    rows.push(line);
  }
  return rows;
}
