import { randomBytes } from "node:crypto";

/** Who a pull worker process is: the host and pid it beats with, and the id its leases and callbacks carry. */
interface WorkerIdentity {
  workerId: string;
  host: string;
  pid: number;
}

/**
 * A worker id unique per process, whatever runs beside it: `<name>-<host>-<pid>-<random>`, where
 * the name is WORKER_ID when set (a fleet's label, e.g. `render-eu`) or the component. The host
 * and pid tell the operator where it runs; the random part keeps two processes apart when
 * containers on several machines share a host name and a pid (pid 1 in every container).
 */
export function workerIdentity(p: { name: string; host: string; pid: number; random?: string }): WorkerIdentity {
  const random = p.random ?? randomBytes(3).toString("hex");
  const host = p.host.trim() || "unknown-host";
  // Heartbeat rows keep ids to 200 characters: a long label or host is cut, never the pid or random part.
  const workerId = `${p.name.slice(0, 64)}-${host.slice(0, 100)}-${p.pid}-${random}`;
  return { workerId, host: host.slice(0, 255), pid: p.pid };
}
