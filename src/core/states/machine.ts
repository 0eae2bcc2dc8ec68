/**
 * A status machine: the statuses a record can hold and, for each, the statuses it may move to.
 * Stores use `sourcesOf` to guard their writes (`UPDATE … WHERE status IN (sources)`), and migrations
 * use `statuses` for the database's own check, so the table below each machine is the one place a
 * lifecycle is written down.
 */
export interface StatusMachine<S extends string> {
  readonly name: string;
  readonly statuses: readonly S[];
  readonly terminal: readonly S[];
  /** Whether a record may move from `from` to `to` (staying put is not a move). */
  canMove(from: string, to: S): boolean;
  /** The statuses from which a record may move to `to`. */
  sourcesOf(to: S): S[];
  isStatus(value: string): value is S;
  isTerminal(value: string): boolean;
}

export function statusMachine<S extends string>(name: string, transitions: Record<S, readonly S[]>): StatusMachine<S> {
  const statuses = Object.keys(transitions) as S[];
  const terminal = statuses.filter((s) => transitions[s].length === 0);
  const isStatus = (value: string): value is S => (statuses as string[]).includes(value);
  return {
    name,
    statuses,
    terminal,
    canMove: (from, to) => isStatus(from) && transitions[from].includes(to),
    sourcesOf: (to) => statuses.filter((from) => transitions[from].includes(to)),
    isStatus,
    isTerminal: (value) => (terminal as string[]).includes(value),
  };
}
