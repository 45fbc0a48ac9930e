/**
 * `mdame dashboard [--port N] [--no-browser]`: the ops dashboard, served from this machine on
 * 127.0.0.1 and reading the operator API with the key this command holds (the browser never sees
 * it). Prints a one-time sign-in link, opens it in the system browser unless --no-browser, and
 * serves until interrupted.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import type { CommandSpec } from "../command-spec.ts";
import type { DashboardApi } from "../dashboard/ops-client.ts";
import { startDashboard } from "../dashboard/server.ts";
import { CliError, EXIT } from "../errors.ts";
import { type CommandContext, printLine } from "../output.ts";

export type DashboardCommand = { name: "dashboard"; port: number; browser: boolean };

const DEFAULT_DASHBOARD_PORT = 8790;

export const DASHBOARD_SPECS: CommandSpec[] = [
  {
    words: ["dashboard"],
    positionals: [],
    flags: [
      {
        name: "port",
        kind: "integer",
        value: "<n>",
        description: `port on 127.0.0.1 (default ${DEFAULT_DASHBOARD_PORT}; 0 picks a free one)`,
        min: 0,
        max: 65535,
      },
      { name: "no-browser", kind: "boolean", description: "only print the sign-in link; do not open a browser" },
    ],
    summary: "serve the ops dashboard on 127.0.0.1: runs, queues, dead letters, videos, quota, schedules, analytics",
    details:
      "Prints a one-time sign-in link (it sets a session cookie; restart for a new one). The pages read the same API as the other commands, with the key this command holds. Ctrl-C stops it. See docs/guides/dashboard.md.",
  },
];

export function parseDashboard(flags: Map<string, string | number | boolean>): DashboardCommand {
  return { name: "dashboard", port: (flags.get("port") as number | undefined) ?? DEFAULT_DASHBOARD_PORT, browser: flags.get("no-browser") !== true };
}

/** Opens `url` in the system browser when there is one; never fails. */
function openBrowser(url: string, err: CommandContext["err"]): void {
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? null : "xdg-open";
  if (opener === null) return;
  try {
    const child = spawn(opener, [url], { stdio: "ignore", detached: true });
    child.on("error", () => printLine(err, `(no ${opener} here: open the link above yourself)`));
    child.unref();
  } catch {
    printLine(err, `(could not start ${opener}: open the link above yourself)`);
  }
}

interface DashboardRunOptions {
  /** Resolves when the dashboard should stop; SIGINT or SIGTERM by default. */
  until?: Promise<unknown>;
}

export async function dashboardCommand(command: DashboardCommand, api: DashboardApi, ctx: CommandContext, options: DashboardRunOptions = {}): Promise<number> {
  let dashboard: ReturnType<typeof startDashboard>;
  try {
    dashboard = startDashboard({ api, port: command.port, now: ctx.now });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `cannot serve the dashboard on 127.0.0.1:${command.port}: ${message}${/in use|EADDRINUSE/i.test(message) ? " (try --port 0)" : ""}`,
      EXIT.failure,
    );
  }
  printLine(ctx.out, `dashboard at ${dashboard.url} reading ${api.baseUrl}`);
  printLine(ctx.out, `sign in (this link works once): ${dashboard.signInUrl}`);
  printLine(ctx.out, "Ctrl-C stops it.");
  if (command.browser) openBrowser(dashboard.signInUrl, ctx.err);
  const until = options.until ?? new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await until;
  await dashboard.stop();
  return EXIT.ok;
}
