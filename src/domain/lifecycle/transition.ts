/**
 * What every transition function of the lifecycle answers: the next status (which may be the same one,
 * `changed: false`, when the event is news that moves nothing), or why the event does not apply to a
 * record in that status. Writers persist only `ok` answers, and only with a conditional update on the
 * status they read, so two writers racing on one record cannot both move it.
 */
export type Transition<S extends string> = { ok: true; to: S; changed: boolean } | { ok: false; reason: string };

export function moveTo<S extends string>(from: S, to: S): Transition<S> {
  return { ok: true, to, changed: from !== to };
}

export function refuse<S extends string>(reason: string): Transition<S> {
  return { ok: false, reason };
}

/**
 * The `default` branch of an exhaustive switch over a status union: the compiler proves it
 * unreachable, and a value the union does not know (a row written outside the state machine) fails
 * loudly instead of taking some branch by accident.
 */
export function unknownStatus(value: never, what: string): never {
  throw new Error(`unknown ${what} ${JSON.stringify(value)}`);
}

/**
 * The statuses of `all` from which `transition` allows moving to `to` (staying put included): what a
 * conditional SQL update names in its `status IN (...)`, so the database write says what the table
 * says and never a hand-written list.
 */
export function statusesMovingTo<S extends string>(
  all: readonly S[],
  transition: (from: S, to: S) => Transition<S>,
  to: S,
): S[] {
  return all.filter((from) => transition(from, to).ok);
}

/**
 * The one move a writer is about to persist, asked of its transition function first: throws when the
 * state machine refuses it (a bug in the writer, never a user error).
 */
export function mustMove<S extends string>(transition: (from: S, to: S) => Transition<S>, from: S, to: S): S {
  const t = transition(from, to);
  if (!t.ok) throw new Error(t.reason);
  return t.to;
}

/**
 * A state set whose moves are a plain table (approvals, jobs, endpoints ...): which statuses each may
 * move to. The transition function answers by the table; staying put is always allowed and unchanged.
 */
export function tableTransition<S extends string>(moves: Readonly<Record<S, readonly S[]>>, what: string) {
  return (from: S, to: S): Transition<S> => {
    if (from === to) return moveTo(from, to);
    if (moves[from].includes(to)) return moveTo(from, to);
    return refuse(`a ${what} cannot move from ${from} to ${to}`);
  };
}
