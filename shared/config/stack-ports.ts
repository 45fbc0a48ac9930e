/**
 * The local stack's default ports, the ones `supabase start` uses, by the variable that moves each.
 * A module of its own that reads nothing: scripts that give themselves a stack of their own (the
 * scale bench, the evals) compute their ports from it before shared/config/local-stack.ts reads
 * the environment.
 */
export const DEFAULT_STACK_PORTS = {
  MDAME_DB_PORT: 54322,
  MDAME_EDGE_PORT: 54321,
  MDAME_EMULATOR_PORT: 54330,
} as const;

export type StackPortVariable = keyof typeof DEFAULT_STACK_PORTS;

/** Each port variable at its default plus `offset`. */
export function offsetStackPorts(offset: number): Record<StackPortVariable, string> {
  return Object.fromEntries(
    Object.entries(DEFAULT_STACK_PORTS).map(([name, port]) => [name, String(port + offset)]),
  ) as Record<StackPortVariable, string>;
}
