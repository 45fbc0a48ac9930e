import postgres from "postgres";
import { Backoff } from "../backoff.ts";
import { pacedConnects } from "./connect-pacing.ts";

export type Sql = postgres.Sql;

/** A gap between two closes longer than the wait's ceiling plus this starts the pacing over. */
const QUIET_MS = 10_000;

/**
 * How long a pool's connection waits before connecting again after it closed (postgres.js's
 * `backoff`, in seconds). postgres.js counts only socket errors as failed attempts, so a server that
 * refuses every login, or ends every session as it starts, would be asked again every few
 * milliseconds by each pool and by each re-LISTEN. Here the waits grow instead, exponentially with
 * jitter from 50 ms up to 30 s (shared/backoff.ts), one step per round: closes that come while the
 * last round's waits may still be running (every connection of the pool, when the server restarts or
 * ends all sessions) are that round's, each with its own jitter. A quiet spell starts it over, so a
 * healthy pool whose connections close now and then reconnects at once.
 */
export function reconnectDelay(now: () => number = Date.now, random: () => number = Math.random): () => number {
  const backoff = new Backoff({ initialMs: 50, maxMs: 30_000, random });
  let lastCloseAt = -Infinity;
  let roundStartedAt = -Infinity;
  return () => {
    const at = now();
    if (at - lastCloseAt > backoff.ceilingMs + QUIET_MS) {
      backoff.reset();
      roundStartedAt = -Infinity;
    }
    lastCloseAt = at;
    if (at - roundStartedAt < backoff.ceilingMs) return backoff.again() / 1000;
    roundStartedAt = at;
    return backoff.next() / 1000;
  };
}

/**
 * A postgres.js pool for the engine's database; notices are dropped, bigints come back as strings.
 * Two paces guard the database while it refuses logins: the reconnect delay above for the closes
 * postgres.js schedules a reconnect after, and the connect pacing (connect-pacing.ts) in front of
 * every socket, for the path where postgres.js reconnects without consulting it.
 */
export function createSql(url: string, options: { max?: number; application?: string } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 4,
    idle_timeout: 30,
    connect_timeout: 10,
    backoff: reconnectDelay(),
    // Not in postgres.js's types, but part of its options: how each connection gets its socket.
    ...({ socket: pacedConnects() } as Record<string, unknown>),
    onnotice: () => {},
    connection: { application_name: options.application ?? "mdame" },
  });
}

/** A pool or a transaction (`sql.begin`'s callback argument): what the RPC functions run on. */
export type Queryable = postgres.ISql;
