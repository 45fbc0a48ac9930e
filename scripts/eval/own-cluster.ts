/**
 * Evals that reset a database run on a Postgres cluster of their own, so an eval never touches the
 * stack it was started beside (its dimensions, runs and alerts stay as they were): state under
 * `.local/eval/`, ports 4400 above the clone's defaults. The eval re-runs itself there as a child
 * process (the ports are read when the modules load), and the cluster is stopped when it ends.
 * `--db shared` runs it on the clone's own cluster instead, as the tests do on theirs.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import process from "node:process";
import { offsetStackPorts } from "../../shared/config/stack-ports.ts";

const PORT_OFFSET = 4400;
/** Set in the child: it is already on the eval's cluster. */
const MARK = "MDAME_EVAL_OWN_CLUSTER";

export function ownClusterEnv(root: string): Record<string, string> {
  return {
    MDAME_LOCAL_DIR: path.join(root, ".local", "eval"),
    ...offsetStackPorts(PORT_OFFSET),
    [MARK]: "1",
  };
}

/** `--db own` (default) or `--db shared`, and the arguments without it; a message for a bad value. */
export function dbChoice(argv: string[]): { db: "own" | "shared"; rest: string[] } | string {
  const at = argv.indexOf("--db");
  if (at < 0) return { db: "own", rest: argv };
  const value = argv[at + 1];
  if (value !== "own" && value !== "shared") {
    return `--db takes own (a cluster of the eval's own, the default) or shared (the clone's), not ${value ?? "nothing"}`;
  }
  return { db: value, rest: [...argv.slice(0, at), ...argv.slice(at + 2)] };
}

/**
 * Runs `script` again with `argv` on the eval's own cluster and stops that cluster after; null
 * when this process is to do the work itself (already there, or `--db shared`).
 */
export function runOnOwnCluster(root: string, script: string, choice: { db: "own" | "shared"; rest: string[] }, say: (line: string) => void): number | null {
  if (choice.db === "shared" || process.env[MARK] === "1") return null;
  const env = { ...process.env, ...ownClusterEnv(root) };
  say(`on a Postgres cluster of its own (${env.MDAME_LOCAL_DIR}, port ${env.MDAME_DB_PORT}); --db shared runs it on the clone's`);
  const child = spawnSync(process.execPath, [script, ...choice.rest], { cwd: root, env, stdio: "inherit" });
  const stopped = spawnSync(process.execPath, [path.join(root, "stack", "db.ts"), "stop"], { cwd: root, env, encoding: "utf8" });
  if (stopped.status !== 0) say(`could not stop the eval's cluster: ${(stopped.stderr || stopped.stdout).trim().slice(0, 300)}`);
  return child.status ?? 1;
}
