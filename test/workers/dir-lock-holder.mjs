// A real process that takes a dir-lock (store/dir-lock.ts) on TARGET, prints "held", and keeps it until
// it is signalled. MODE: "plain"; "with-lockfile" (proper-lockfile, and with it signal-exit, loaded and
// holding a lock of its own on TARGET-2 too); "own-handler" (the process handles SIGTERM itself: it
// prints "cleaning up" and exits 7 a moment later, as a screen does).
import { withDirLock } from '../../dist/store/dir-lock.js';

const [target, mode] = process.argv.slice(2);
const forever = () => new Promise(() => setInterval(() => undefined, 60_000));
if (mode === 'own-handler') {
  process.on('SIGTERM', () => {
    process.stdout.write('cleaning up\n');
    setTimeout(() => process.exit(7), 50);
  });
}
if (mode === 'with-lockfile') {
  const { withLock } = await import('../../dist/store/lock.js');
  await withLock(`${target}-2`, () => withDirLock(target, async () => {
    process.stdout.write('held\n');
    await forever();
  }));
} else {
  await withDirLock(target, async () => {
    process.stdout.write('held\n');
    await forever();
  });
}
