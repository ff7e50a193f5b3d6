/**
 * FolderWatch: inotify watches (node's fs.watch, one per folder, not recursive) on a team folder and
 * some of its direct sub-folders, reporting the full path of every entry that changes. It owns only
 * the watch handles. Unlike a directory-diffing watcher, an event costs the same whatever the number
 * of files in the folder: the kernel names the file, nothing is listed or stat'ed. A sub-folder that
 * does not exist yet is armed when it appears in the team folder, and re-armed when it is replaced.
 */
import { readdir } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';

/** What a FolderWatch reports to its owner. */
export interface FolderWatchSink {
  /** A file (or sub-folder) changed: its full path. A change the kernel did not name reports the folder. */
  change(file: string): void;
  /** A watch failed (the folder went away, too many watches); the owner logs it. */
  error(err: unknown): void;
}

/** Watches `root` and the named sub-folders of it. */
export class FolderWatch {
  // lifecycle
  private rootWatcher: FSWatcher | null = null;
  private readonly children = new Map<string, FSWatcher | null>();
  private closed = false;

  constructor(private readonly root: string, subfolders: string[], private readonly sink: FolderWatchSink) {
    for (const name of subfolders) this.children.set(name, null);
  }

  /** Arm every watch that can be armed now (the root must exist). */
  start(): void {
    this.rootWatcher = watch(this.root, (_event, name) => this.onRoot(name === null ? null : String(name)));
    this.rootWatcher.on('error', (err) => this.sink.error(err));
    for (const name of this.children.keys()) this.arm(name);
  }

  /** Close every watch. */
  close(): void {
    this.closed = true;
    this.rootWatcher?.close();
    this.rootWatcher = null;
    for (const [name, w] of this.children) {
      w?.close();
      this.children.set(name, null);
    }
  }

  private onRoot(name: string | null): void {
    if (this.closed) return;
    if (name === null) {
      // Unnamed: anything may have changed, sub-folders included.
      for (const child of this.children.keys()) this.arm(child);
      this.sink.change(this.root);
      return;
    }
    // A sub-folder that was created, removed or replaced: watch the folder now at that path, and
    // report what was written into it before the watch was armed.
    if (this.children.has(name) && this.arm(name)) void this.reportEntries(name);
    this.sink.change(path.join(this.root, name));
  }

  private async reportEntries(name: string): Promise<void> {
    const dir = path.join(this.root, name);
    const entries = await readdir(dir).catch(() => [] as string[]);
    for (const e of entries) if (!this.closed) this.sink.change(path.join(dir, e));
  }

  /** (Re)arm the watch of a sub-folder; false when it is not there. */
  private arm(name: string): boolean {
    this.children.get(name)?.close();
    this.children.set(name, null);
    const dir = path.join(this.root, name);
    let w: FSWatcher;
    try {
      w = watch(dir, (_event, file) => {
        if (!this.closed) this.sink.change(file === null ? dir : path.join(dir, String(file)));
      });
    } catch (err) {
      // Not there (yet): the root's watch arms it when it appears.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') this.sink.error(err);
      return false;
    }
    w.on('error', (err) => {
      // The folder went away under the watch; the root's event for it re-arms.
      if (this.children.get(name) === w) this.children.set(name, null);
      w.close();
      if ((err as NodeJS.ErrnoException).code !== 'EPERM' && (err as NodeJS.ErrnoException).code !== 'ENOENT') this.sink.error(err);
    });
    this.children.set(name, w);
    return true;
  }
}
