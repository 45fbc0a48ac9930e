/**
 * Failpoints: named places where a crash test makes the process kill itself with SIGKILL (no
 * cleanup, no finally blocks, no flushed buffers), to show that a crash between two steps
 * converges without duplicates once the supervisor has restarted the process.
 *
 *   MDAME_FAILPOINTS=visual.mid-generation,publish.mid-upload@2
 *   MDAME_FAILPOINT_DIR=/tmp/crash-run-a
 *
 * `name` fires on its first hit, `name@N` on its Nth hit, hits counted per process. A failpoint
 * fires at most once per process and, with MDAME_FAILPOINT_DIR, at most once across restarts: the
 * hit is recorded there as `<name>.hit` (created exclusively, before the kill) and a recorded name
 * never fires again. The supervisor restarts a killed component with the same environment, so
 * without that record the failpoint would fire on every restart and the work would never finish.
 *
 * Unset, every call is a map lookup that finds nothing. ENV=prod with MDAME_FAILPOINTS set is
 * refused: the first call throws. Works under Bun and Deno (node:fs, node:process only).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

const NAME = /^[a-z0-9][a-z0-9._-]*$/;

interface ArmedPoint {
  /** Fires on this hit (1-based). */
  hitOn: number;
  hits: number;
  /** Fired or skipped for good in this process. */
  spent: boolean;
}

/**
 * Parses a MDAME_FAILPOINTS value into name -> the hit it fires on. Throws on a malformed entry,
 * so a typo in a test is an error rather than a crash that silently never happens.
 */
export function parseFailpoints(spec: string): Map<string, number> {
  const points = new Map<string, number>();
  for (const entry of spec.split(",").map((e) => e.trim()).filter(Boolean)) {
    const at = entry.lastIndexOf("@");
    const name = at === -1 ? entry : entry.slice(0, at);
    const nth = at === -1 ? "1" : entry.slice(at + 1);
    if (!NAME.test(name) || !/^[1-9]\d*$/.test(nth)) {
      throw new Error(`MDAME_FAILPOINTS: "${entry}" is not <name> or <name>@<N> (name: lower-case letters, digits, . _ -; N >= 1)`);
    }
    points.set(name, Number(nth));
  }
  return points;
}

let armed: Map<string, ArmedPoint> | null = null;

function armedPoints(): Map<string, ArmedPoint> {
  if (armed) return armed;
  const spec = process.env.MDAME_FAILPOINTS?.trim() ?? "";
  if (spec !== "" && process.env.ENV === "prod") {
    throw new Error("MDAME_FAILPOINTS is set with ENV=prod: failpoints are for crash tests only; unset it");
  }
  armed = new Map([...parseFailpoints(spec)].map(([name, hitOn]) => [name, { hitOn, hits: 0, spent: false }]));
  return armed;
}

/** Claims the failpoint for this stack; false when an earlier process already fired it. */
function claim(name: string): boolean {
  const dir = process.env.MDAME_FAILPOINT_DIR?.trim();
  if (!dir) return true;
  mkdirSync(dir, { recursive: true });
  let fd: number;
  try {
    fd = openSync(join(dir, `${name}.hit`), "wx");
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify({ name, pid: process.pid, at: new Date().toISOString(), argv: process.argv.slice(1) })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * A crash point. When MDAME_FAILPOINTS arms `name` and this is the hit it fires on, writes
 * `failpoint <name> hit: killing the process` to stderr and kills the process with SIGKILL;
 * otherwise returns at once.
 */
export function failpoint(name: string): void {
  const point = armedPoints().get(name);
  if (!point || point.spent) return;
  point.hits += 1;
  if (point.hits < point.hitOn) return;
  point.spent = true;
  if (!claim(name)) return;
  // Synchronous: an asynchronous stderr write would be lost with the process.
  writeSync(2, `failpoint ${name} hit: killing the process\n`);
  process.kill(process.pid, "SIGKILL");
  // SIGKILL to oneself is delivered before kill(2) returns; this only guards against a runtime
  // that queues it, so nothing after the call site runs meanwhile.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
  throw new Error(`failpoint ${name}: the process survived SIGKILL`);
}

/**
 * Polls `condition` every `intervalMs` while `name` is armed and fires the failpoint once it
 * holds: a crash point inside work this process only waits on (a subprocess writing its output,
 * say). Returns the function that stops polling; when `name` is not armed nothing is polled.
 */
export function failpointWhen(name: string, condition: () => boolean, intervalMs = 100): () => void {
  const point = armedPoints().get(name);
  if (!point || point.spent) return () => {};
  const timer = setInterval(() => {
    if (!condition()) return;
    clearInterval(timer);
    failpoint(name);
  }, intervalMs);
  return () => clearInterval(timer);
}
