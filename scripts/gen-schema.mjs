#!/usr/bin/env node
// Writes layouts/schema.json from the zod layout schema. Run after `npx tsc` has built dist/:
//   node scripts/gen-schema.mjs          write the file
//   node scripts/gen-schema.mjs --check  exit 1 if the checked-in file is stale
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderLayoutJsonSchema } from '../dist/config/json-schema.js';

const target = fileURLToPath(new URL('../layouts/schema.json', import.meta.url));
const text = renderLayoutJsonSchema();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error('layouts/schema.json is stale; run: npx tsc && node scripts/gen-schema.mjs');
    process.exit(1);
  }
  console.log('layouts/schema.json is up to date');
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
