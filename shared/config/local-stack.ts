/** Fixed addresses of the local stack (DESIGN.md, "Local stack"), as `supabase start` uses. */
export const LOCAL_STACK = {
  dbPort: 54322,
  edgePort: 54321,
  emulatorPort: 54330,
  host: "127.0.0.1",
} as const;

export const LOCAL_DB_URL = `postgres://postgres:postgres@${LOCAL_STACK.host}:${LOCAL_STACK.dbPort}/postgres`;
export const LOCAL_FUNCTIONS_URL = `http://${LOCAL_STACK.host}:${LOCAL_STACK.edgePort}/functions/v1`;
export const LOCAL_EMULATOR_URL = `http://${LOCAL_STACK.host}:${LOCAL_STACK.emulatorPort}`;

/** Components the supervisor runs; each writes `.local/run/<component>.pid`. */
export const COMPONENTS = ["db", "emulators", "edge", "gpu-worker", "render-runner"] as const;
export type Component = (typeof COMPONENTS)[number];
