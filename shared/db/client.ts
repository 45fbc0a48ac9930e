import postgres from "postgres";
import { Backoff } from "../backoff.ts";

export type Sql = postgres.Sql;

/** A gap between two closes longer than the last wait plus this starts the pacing over. */
const QUIET_MS = 10_000;

/**
 * How long a pool's connection waits before connecting again after it closed (postgres.js's
 * `backoff`, in seconds). postgres.js counts only socket errors as failed attempts, so a server that
 * refuses every login, or ends every session as it starts, would be asked again every few
 * milliseconds by each pool and by each re-LISTEN. Here closes that follow each other closely grow
 * the wait instead, exponentially with jitter up to 30 s (shared/backoff.ts), and a quiet spell
 * starts it over: a healthy pool, whose connections close now and then, reconnects at once.
 */
export function reconnectDelay(now: () => number = Date.now, random: () => number = Math.random): () => number {
  const backoff = new Backoff({ initialMs: 50, maxMs: 30_000, random });
  let lastCloseAt = -Infinity;
  let lastWaitMs = 0;
  return () => {
    const at = now();
    if (at - lastCloseAt > lastWaitMs + QUIET_MS) backoff.reset();
    lastCloseAt = at;
    lastWaitMs = backoff.next();
    return lastWaitMs / 1000;
  };
}

/** A postgres.js pool for the engine's database; notices are dropped, bigints come back as strings. */
export function createSql(url: string, options: { max?: number; application?: string } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 4,
    idle_timeout: 30,
    connect_timeout: 10,
    backoff: reconnectDelay(),
    onnotice: () => {},
    connection: { application_name: options.application ?? "mdame" },
  });
}

/** A pool or a transaction (`sql.begin`'s callback argument): what the RPC functions run on. */
export type Queryable = postgres.ISql;
