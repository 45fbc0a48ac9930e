/**
 * Serves the dashboard on 127.0.0.1 with Bun.serve: nothing listens on another interface, and the
 * app refuses any Host but 127.0.0.1:PORT and localhost:PORT.
 */
import { createDashboardApp } from "./app.ts";
import type { DashboardApi } from "./ops-client.ts";
import { createSessions, type Sessions } from "./sessions.ts";

interface RunningDashboard {
  port: number;
  /** Where the dashboard is. */
  url: string;
  /** The one-time sign-in link (its token works once). */
  signInUrl: string;
  sessions: Sessions;
  stop(): Promise<void>;
}

interface DashboardServerOptions {
  api: DashboardApi;
  /** 0 picks a free port. */
  port: number;
  now?: () => number;
}

export function startDashboard(options: DashboardServerOptions): RunningDashboard {
  const sessions = createSessions(options.now);
  const signInToken = sessions.signInToken!;
  let port = 0;
  const app = createDashboardApp({ api: options.api, sessions, port: () => port, now: options.now });
  const server = Bun.serve({ hostname: "127.0.0.1", port: options.port, fetch: (request) => app.fetch(request) });
  port = server.port ?? options.port;
  const url = `http://127.0.0.1:${port}/`;
  return {
    port,
    url,
    signInUrl: `${url}sign-in?token=${encodeURIComponent(signInToken)}`,
    sessions,
    stop: async () => {
      await server.stop(true);
    },
  };
}
