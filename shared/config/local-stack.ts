/**
 * Addresses of the local stack (docs/design.md, "Local stack"): the ports `supabase start` uses, unless
 * MDAME_DB_PORT, MDAME_EDGE_PORT or MDAME_EMULATOR_PORT say otherwise, so a second clone on the
 * same machine can run its own stack (its cluster's data directory is already its own).
 */
import process from "node:process";
import { COMPONENT_DB_ROLES, type DbComponent } from "./db-roles.ts";
import { DEFAULT_STACK_PORTS, type StackPortVariable } from "./stack-ports.ts";

function portFromEnv(name: StackPortVariable): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return DEFAULT_STACK_PORTS[name];
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1024 || port > 65535) {
    throw new Error(`${name}=${raw} is not a usable port: give a whole number from 1024 to 65535`);
  }
  return port;
}

export const LOCAL_STACK = {
  dbPort: portFromEnv("MDAME_DB_PORT"),
  edgePort: portFromEnv("MDAME_EDGE_PORT"),
  emulatorPort: portFromEnv("MDAME_EMULATOR_PORT"),
  host: "127.0.0.1",
} as const;

/**
 * The local cluster as its superuser: resets, migrations, benchmarks and tests' fixtures. The
 * components get `localEngineDbUrl` instead (stack/stack-env.ts, localStackEnv).
 */
export const LOCAL_DB_URL = `postgres://postgres:postgres@${LOCAL_STACK.host}:${LOCAL_STACK.dbPort}/postgres`;

/** The local cluster as a component's role, with the clone's own password for it. */
export function localComponentDbUrl(component: DbComponent, password: string): string {
  return `postgres://${COMPONENT_DB_ROLES[component]}:${encodeURIComponent(password)}@${LOCAL_STACK.host}:${LOCAL_STACK.dbPort}/postgres`;
}

/** The local cluster as the edge's role. */
export function localEngineDbUrl(password: string): string {
  return localComponentDbUrl("edge", password);
}
export const LOCAL_FUNCTIONS_URL = `http://${LOCAL_STACK.host}:${LOCAL_STACK.edgePort}/functions/v1`;
export const LOCAL_EMULATOR_URL = `http://${LOCAL_STACK.host}:${LOCAL_STACK.emulatorPort}`;

/**
 * Components the supervisor runs, in start order; each writes `.local/run/<component>.pid`. `net`
 * sends what pg_net's stand-in queues (stack/net-sender.ts).
 */
export const COMPONENTS = ["db", "emulators", "edge", "net", "gpu-worker", "render-runner"] as const;
export type Component = (typeof COMPONENTS)[number];
