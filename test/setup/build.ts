// Multi-process tests run the compiled CLI and store from dist/, so build once before any test file,
// then bundle it (scripts/bundle.mjs) as `npm run build` does: bin/teamux runs the bundle when it is
// fresh, so every test that runs the CLI runs the bundle users get.
// Type errors do not stop the build here (tsc still emits); `npm test` runs tsc as a strict gate first.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: Buffer };
    process.stderr.write(`warning: tsc reported type errors (dist/ was still built):\n${e.stdout?.toString().slice(0, 2000) ?? ''}\n`);
  }
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/bundle.mjs', import.meta.url)), root], { cwd: root, stdio: 'pipe' });
}
