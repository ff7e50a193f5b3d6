#!/usr/bin/env python3
"""A task claimer written from docs/protocol.md alone (no teamux code): the interop check that the
document is enough for a third-party writer to take part in claim races without double claims.

usage: claimer.py TEAM_DIR MEMBER [GO_FILE]
Claims ready tasks until a fresh scan finds none; prints {"name", "won"} as one JSON line. With
GO_FILE it prints "ready" first and waits for that file to exist, so racers start together.
"""
import errno
import json
import os
import random
import re
import secrets
import sys
import time
from datetime import datetime, timezone

TASK_FILE = re.compile(r"^[1-9][0-9]*\.json$")
STALE_S = 5.0  # §2: a lock whose mtime is older than 5 s is stale


def now_iso():
    # §3: ISO-8601 UTC, as JavaScript's toISOString() writes it (milliseconds, "Z").
    d = datetime.now(timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None  # §11: missing or unreadable files are skipped


def atomic_write_json(path, value):
    # §1/§2: temp file ".<file>.<pid>.<8 hex>.tmp" beside the target, O_CREAT|O_EXCL 0600, fsync, rename.
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, (json.dumps(value, indent=2) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(tmp, path)


def append_event(team_dir, event):
    # §2: one O_APPEND write of the line and its newline.
    line = (json.dumps(event, separators=(",", ":")) + "\n").encode("utf-8")
    fd = os.open(os.path.join(team_dir, "events.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        if os.write(fd, line) != len(line):
            raise OSError("short append to events.jsonl")
    finally:
        os.close(fd)


def try_lock(lock_dir):
    """One attempt at the lock (§2 recipe, steps 1-2): True if held now."""
    try:
        os.mkdir(lock_dir, 0o700)
        return True
    except FileExistsError:
        pass
    try:
        age = time.time() - os.stat(lock_dir).st_mtime
    except FileNotFoundError:
        age = None  # released meanwhile: try once more
    if age is not None and age <= STALE_S:
        return False
    if age is not None:
        try:
            os.rmdir(lock_dir)
        except FileNotFoundError:
            pass
    try:
        os.mkdir(lock_dir, 0o700)
        return True
    except FileExistsError:
        return False


def ready_ids(tasks_dir):
    """§4 Ready: pending, no owner, every blocker completed; low ids first."""
    tasks = {}
    for name in os.listdir(tasks_dir):
        if TASK_FILE.match(name):
            t = read_json(os.path.join(tasks_dir, name))
            if isinstance(t, dict) and t.get("version") in (1, 2) and t.get("id") == name[:-5]:  # §1: 2, and 1 still read
                tasks[t["id"]] = t
    ready = [i for i, t in tasks.items() if t.get("status") == "pending" and t.get("owner") is None
             and all(tasks.get(b, {}).get("status") == "completed" for b in t.get("blockedBy", []))]
    return sorted(ready, key=int)


def claim(team_dir, tasks_dir, task_id, me):
    """Claim one task under its own lock (§2, §4); True if won."""
    path = os.path.join(tasks_dir, f"{task_id}.json")
    lock_dir = path + ".lock"
    if not try_lock(lock_dir):
        return False  # §4 claim next: a busy lock means another claimer is on it
    try:
        task = read_json(path)  # read after taking the lock, never before
        if not isinstance(task, dict) or task.get("status") != "pending" or task.get("owner") is not None:
            return False
        for b in task.get("blockedBy", []):
            blocker = read_json(os.path.join(tasks_dir, f"{b}.json"))  # blockers are read without their locks
            if not isinstance(blocker, dict) or blocker.get("status") != "completed":
                return False
        now = now_iso()
        # §4.1: a claim appends an open attempt; a version 1 task is written back as version 2
        attempts = list(task.get("attempts", [])) + [{"owner": me, "startedAt": now, "endedAt": None, "outcome": None, "note": None}]
        task.update(version=2, status="in_progress", owner=me, claimedAt=now, updatedAt=now, revision=task["revision"] + 1,
                    attempts=attempts, blockedReason=task.get("blockedReason"), reopenedAt=task.get("reopenedAt"))
        atomic_write_json(path, task)
        append_event(team_dir, {"time": now, "type": "task_claimed", "task": task_id, "by": me})
        return True
    finally:
        try:
            os.rmdir(lock_dir)
        except OSError as err:
            if err.errno != errno.ENOENT:
                raise


def main():
    team_dir, me = sys.argv[1], sys.argv[2]
    go = sys.argv[3] if len(sys.argv) > 3 else None
    tasks_dir = os.path.join(team_dir, "tasks")
    if go:
        print("ready", flush=True)
        while not os.path.exists(go):
            time.sleep(0.005)
    won = []
    while True:
        ready = ready_ids(tasks_dir)
        if not ready:
            break
        # Spread out from racing claimers, as §4 describes teamux doing.
        start = random.randrange(min(8, len(ready)))
        for task_id in ready[start:] + ready[:start]:
            if claim(team_dir, tasks_dir, task_id, me):
                won.append(task_id)
    print(json.dumps({"name": me, "won": won}), flush=True)


if __name__ == "__main__":
    main()
