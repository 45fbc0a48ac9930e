/**
 * Pacing of a pool's TCP connects, in front of postgres.js: every connection the pool opens gets its
 * socket here (postgres.js's `socket` option), and after a connection that did not last, the next
 * one waits. postgres.js paces the reconnects it schedules after a close (`backoff`, see
 * reconnectDelay in client.ts), but not every path through it does: after a server restart into a
 * database that refuses logins, a pool whose queries keep coming was seen to connect again at once,
 * a few hundred times a second. Here no path escapes: a socket is only made once the wait is over.
 *
 * A connection counts as healthy once it has stayed open STABLE_MS; one that closed sooner (refused,
 * rejected at login, ended by the server) is a failure, and the waits grow with the shared backoff
 * (shared/backoff.ts), exponentially with jitter from 50 ms up to MAX_WAIT_MS. A healthy close
 * starts over: a pool whose long-lived connections close now and then reconnects at once.
 */
import net from "node:net";
import { Backoff } from "../backoff.ts";

/** A connection that stayed open this long was a success. */
export const STABLE_MS = 5_000;
/** The longest wait between two connects of one pool. */
export const MAX_WAIT_MS = 10_000;

/** What postgres.js passes its `socket` option: its parsed options (hosts and ports as lists). */
export interface PgSocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

interface ConnectPacingOptions {
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** How a socket is made; net.connect unless a test counts them. */
  connect?: (options: PgSocketOptions) => net.Socket;
}

/** The socket of one connection attempt, to the first host (the engine's URLs name one). */
function connectSocket(options: PgSocketOptions): net.Socket {
  if (options.path) return net.connect(options.path);
  const host = options.host[0] ?? "localhost";
  const port = options.port[0] ?? 5432;
  const socket = net.connect(port, host);
  // postgres.js reads these for TLS's server name and its error messages.
  Object.assign(socket, { host, port });
  return socket;
}

/**
 * A `socket` option for one pool: resolves to a socket once the pool's wait is over. The socket is
 * returned while it connects (writes wait in its buffer), so a refused connect reaches postgres.js as
 * the socket's own error, as without this option.
 */
export function pacedConnects(options: ConnectPacingOptions = {}): (pg: PgSocketOptions) => Promise<net.Socket> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const connect = options.connect ?? connectSocket;
  const backoff = new Backoff({ initialMs: 50, maxMs: MAX_WAIT_MS, random: options.random });
  let notBefore = 0;

  return async (pg) => {
    const wait = notBefore - now();
    if (wait > 0) await sleep(wait);
    const openedAt = now();
    const socket = connect(pg);
    socket.once("close", () => {
      const closedAt = now();
      if (closedAt - openedAt >= STABLE_MS) {
        backoff.reset();
        notBefore = 0;
        return;
      }
      notBefore = Math.max(notBefore, closedAt + backoff.next());
    });
    return socket;
  };
}
