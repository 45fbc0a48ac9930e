/**
 * The supervisor's alert for a component it keeps restarting: after `threshold` restarts within
 * `windowMs`, one component_restarting alert is raised through the database (mdame.raise_alert,
 * deduplicated there by component), then none again for that component until a new window fills.
 * A raise that fails (the database is the component restarting, say) is reported and dropped.
 */
import { createSql, type Sql } from "../shared/db/client.ts";
import { raiseAlert } from "../shared/db/rpc/alerts.ts";

interface RestartAlertOptions {
  threshold?: number;
  windowMs?: number;
  now?: () => number;
  raise: (alert: { component: string; restarts: number; windowS: number; lastExit: string }) => Promise<void>;
  report?: (line: string) => void;
}

export class RestartWatch {
  readonly #threshold: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #restarts = new Map<string, number[]>();
  constructor(private readonly options: RestartAlertOptions) {
    this.#threshold = options.threshold ?? 3;
    this.#windowMs = options.windowMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Counts one restart of `component`; raises (once per filled window) and resolves when done. */
  async record(component: string, lastExit: string): Promise<boolean> {
    const now = this.#now();
    const recent = [...(this.#restarts.get(component) ?? []).filter((t) => t > now - this.#windowMs), now];
    if (recent.length < this.#threshold) {
      this.#restarts.set(component, recent);
      return false;
    }
    this.#restarts.set(component, []);
    try {
      await this.options.raise({ component, restarts: recent.length, windowS: Math.round(this.#windowMs / 1000), lastExit });
    } catch (error) {
      this.options.report?.(`could not raise the restart alert for ${component}: ${(error as Error).message}`);
    }
    return true;
  }
}

/** A raise through the engine role's connection (one short-lived pool per alert: restarts are rare). */
export function raiseThroughDatabase(dbUrl: string): RestartAlertOptions["raise"] {
  return async ({ component, restarts, windowS, lastExit }) => {
    const sql: Sql = createSql(dbUrl, { max: 1, application: "mdame-supervisor" });
    try {
      await raiseAlert(sql, {
        kind: "component_restarting",
        dimensionId: null,
        dedupeKey: `component_restarting:${component}`,
        summary: `${component} was restarted ${restarts} times within ${Math.round(windowS / 60)} minutes (last exit: ${lastExit})`,
        details: { component, restarts, window_s: windowS, last_exit: lastExit },
      });
    } finally {
      await sql.end({ timeout: 2 });
    }
  };
}
