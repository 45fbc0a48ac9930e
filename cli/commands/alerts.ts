/** `mdame alerts`: the operator's recent alerts, with how often each happened and whether it reached the chat. */
import type { AlertList, ListedAlert } from "../../shared/contracts/alerts.ts";
import type { ApiClient } from "../api-client.ts";
import { type CommandSpec, JSON_FLAG } from "../command-spec.ts";
import { EXIT } from "../errors.ts";
import { type CommandContext, formatAge, formatTable, printJson, printLines } from "../output.ts";

export type AlertsCommand = { name: "alerts"; limit: number; json: boolean };

export const ALERTS_SPECS: CommandSpec[] = [
  {
    words: ["alerts"],
    positionals: [],
    flags: [{ name: "limit", kind: "integer", value: "<n>", description: "how many alerts (default 30)", min: 1, max: 500 }, JSON_FLAG],
    summary: "list recent alerts, newest first: kind, dimension, occurrences and whether Telegram got them",
    details:
      "Alerts are raised by failed runs, dead letters, accounts to reconnect, stale deferrals, quality-gate failures and restarting components (docs/reference/alerts.md).",
  },
];

export function parseAlerts(flags: Map<string, string | number | boolean>): AlertsCommand {
  return { name: "alerts", limit: (flags.get("limit") as number | undefined) ?? 30, json: flags.get("json") === true };
}

function delivery(alert: ListedAlert, nowMs: number): string {
  if (alert.status === "sent") return `sent ${formatAge(alert.sent_at, nowMs)} ago`;
  if (alert.status === "failed") return "failed";
  return alert.attempts === 0 ? "pending" : `pending (${alert.attempts} tries)`;
}

/** The alerts table, as lines; the summary (or the last error) is cut to fit `width`. Pure, for tests. */
export function formatAlerts(list: AlertList, nowMs: number, width?: number): string[] {
  const lines: string[] = [];
  if (!list.delivery.configured) {
    lines.push("delivery is off: set TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID (docs/reference/alerts.md); alerts are recorded meanwhile");
  }
  if (list.alerts.length === 0) return [...lines, "no alerts"];
  return [
    ...lines,
    ...formatTable(
      ["age", "kind", "dimension", "times", "delivery", "summary"],
      list.alerts.map((a) => [
        formatAge(a.last_raised_at, nowMs),
        a.kind,
        a.dimension_id ?? "-",
        String(a.occurrences),
        delivery(a, nowMs),
        a.status === "failed" || (a.status === "pending" && a.last_error) ? `${a.summary} [${a.last_error}]` : a.summary,
      ]),
      width ?? 120,
    ),
  ];
}

export async function alertsCommand(command: AlertsCommand, api: ApiClient, ctx: CommandContext): Promise<number> {
  const list = await api.listAlerts(command.limit);
  if (command.json) printJson(ctx.out, list);
  else printLines(ctx.out, formatAlerts(list, ctx.now(), ctx.out.columns || undefined));
  return EXIT.ok;
}
