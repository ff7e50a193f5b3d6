/**
 * Seed tasks declared in a layout file: the ids they get (explicit, or the next free number) and the
 * cross-task rules zod cannot express per field — ids are unique, every `blockedBy` names a seed task
 * of the same file, and the dependency graph has no cycles. Problems come back as values with the
 * path of the offending entry, so the loader can point at the right line.
 */
import { didYouMean } from './suggest.js';

/** The fields of a seed task these rules look at. */
export interface TaskRefs {
  id?: string | number | undefined;
  blockedBy?: readonly (string | number)[] | undefined;
}

/** One broken rule, at a path relative to the `tasks` list. */
export interface TaskProblem {
  path: (string | number)[];
  message: string;
  hint?: string;
}

/** Ids for every task: its own, or the smallest unused positive number counting up from the last. */
export function assignTaskIds(tasks: readonly TaskRefs[]): string[] {
  const taken = new Set(tasks.flatMap((t) => (t.id === undefined ? [] : [String(t.id)])));
  let next = 1;
  return tasks.map((t) => {
    if (t.id !== undefined) return String(t.id);
    while (taken.has(String(next))) next++;
    taken.add(String(next));
    return String(next++);
  });
}

/** Everything wrong with the ids and dependencies of `tasks`; paths start at the task index. */
export function seedTaskProblems(tasks: readonly TaskRefs[]): TaskProblem[] {
  const problems: TaskProblem[] = [];
  const ids = assignTaskIds(tasks);
  const firstIndex = new Map<string, number>();
  tasks.forEach((t, i) => {
    const id = ids[i]!;
    const seen = firstIndex.get(id);
    if (seen === undefined) firstIndex.set(id, i);
    else if (t.id !== undefined) {
      problems.push({ path: [i, 'id'], message: `duplicate task id "${id}" (also used by tasks[${seen}])` });
    }
  });
  const known = [...firstIndex.keys()];
  const edges = new Map<string, { to: string; path: (string | number)[] }[]>();
  tasks.forEach((t, i) => {
    (t.blockedBy ?? []).forEach((dep, j) => {
      const to = String(dep);
      const path = [i, 'blockedBy', j];
      if (!firstIndex.has(to)) {
        const near = didYouMean(to, known);
        const list = known.length ? `seed task ids: ${known.join(', ')}` : 'this file declares no task ids';
        problems.push({
          path,
          message: `no seed task has id "${to}"`,
          hint: near ? `did you mean "${near}"? ${list}` : list,
        });
        return;
      }
      if (firstIndex.get(ids[i]!) !== i) return; // a duplicate id was already reported
      const list = edges.get(ids[i]!) ?? [];
      list.push({ to, path });
      edges.set(ids[i]!, list);
    });
  });
  problems.push(...cycleProblems(known, edges));
  return problems;
}

/** One problem per distinct cycle, reported at the `blockedBy` entry that closes it. */
function cycleProblems(
  ids: readonly string[],
  edges: ReadonlyMap<string, readonly { to: string; path: (string | number)[] }[]>,
): TaskProblem[] {
  const problems: TaskProblem[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (id: string): void => {
    state.set(id, 'open');
    stack.push(id);
    for (const edge of edges.get(id) ?? []) {
      const s = state.get(edge.to);
      if (s === 'open') {
        const cycle = [...stack.slice(stack.indexOf(edge.to)), edge.to];
        const key = [...new Set(cycle)].sort().join('\0');
        if (reported.has(key)) continue;
        reported.add(key);
        problems.push(
          cycle.length === 2
            ? { path: edge.path, message: `task "${id}" is blocked by itself` }
            : {
                path: edge.path,
                message: `dependency cycle: ${cycle.join(' -> ')}`,
                hint: 'each task is blocked by the next; remove one of these blockedBy entries',
              },
        );
      } else if (s === undefined) {
        visit(edge.to);
      }
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of ids) if (!state.has(id)) visit(id);
  return problems;
}
