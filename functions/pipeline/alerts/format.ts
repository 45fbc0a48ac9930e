/**
 * An alert as Telegram messages: a title by kind, the dimension, the summary, how often it
 * happened, the details that matter for its kind, every piece escaped for MarkdownV2 and split to
 * fit. Known secrets are taken out of every value before anything is escaped.
 */
import type { ClaimedAlert, EdgeAlertKind } from "../../../shared/contracts/alerts.ts";
import { boldMarkdownV2, escapeMarkdownV2, MAX_CAPTION_CHARS, splitMarkdownV2 } from "../../../shared/providers/telegram/markdown-v2.ts";
import { commonMarkToMarkdownV2 } from "./commonmark.ts";

const TITLES: Record<EdgeAlertKind, string> = {
  run_failed: "🔴 Run failed",
  dead_letter: "🟠 Dead letter",
  needs_reconnect: "🔌 Account needs reconnecting",
  quota_deferral_stale: "⏳ Publication deferred for over a day",
  quality_gate_failed: "🎞️ Render failed the quality gate",
  component_restarting: "🔁 Component keeps restarting",
  weekly_report: "📊 Weekly report",
  upload_locked: "🔒 Upload not public",
  quota_bucket_high: "📈 Upload quota running out",
  spend_budget: "💸 Spend budget",
  review_waiting: "👀 Video waits for review",
};

/** The details worth a line, by kind, in this order; `fix` (a command) always comes last. */
const DETAIL_KEYS: Record<EdgeAlertKind, string[]> = {
  run_failed: ["run_id", "env", "run_date", "trigger_kind", "error"],
  dead_letter: ["queue", "stage", "attempts", "unit_id", "run_id", "error"],
  needs_reconnect: ["platform", "channel_handle", "reason"],
  quota_deferral_stale: ["platform", "channel_handle", "reason", "topic", "deferred_since", "not_before", "publication_id"],
  quality_gate_failed: ["topic", "attempts", "unit_id", "run_id", "error"],
  component_restarting: ["component", "restarts", "window_s", "last_exit"],
  weekly_report: [],
  upload_locked: ["platform", "channel_handle", "external_id", "privacy_status", "privacy_requested", "publication_id"],
  quota_bucket_high: ["project", "quota_day", "used", "limit", "accounts", "resets_at"],
  spend_budget: ["period", "spent_usd", "budget_usd", "threshold"],
  review_waiting: ["title", "expires_at", "on_expiry", "unit_id", "approve", "reject"],
};

const MAX_VALUE_CHARS = 600;

/** `text` with each secret (8 characters or more) replaced by `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= 8) out = out.split(secret).join("[redacted]");
  }
  return out;
}

function valueText(value: unknown): string | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

function utc(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

/** The alert's text as MarkdownV2 (not yet split). */
export function formatAlert(alert: ClaimedAlert, secrets: readonly (string | undefined)[] = []): string {
  const clean = (text: string) => escapeMarkdownV2(redactSecrets(text, secrets));
  const lines: string[] = [];
  lines.push(`*${clean(TITLES[alert.kind])}*${alert.dimension_id ? ` · ${clean(alert.dimension_id)}` : ""}`);
  // The weekly report is CommonMark (docs/reference/weekly-report.md): shown with its headings, bold and links.
  lines.push(alert.kind === "weekly_report" ? commonMarkToMarkdownV2(redactSecrets(alert.summary, secrets)) : clean(alert.summary));
  if (alert.occurrences > 1) {
    lines.push(clean(`Happened ${alert.occurrences} times, first ${utc(alert.created_at)}, last ${utc(alert.last_raised_at)}`));
  }
  const details: string[] = [];
  for (const key of DETAIL_KEYS[alert.kind]) {
    const text = valueText(alert.details[key]);
    if (text !== undefined) details.push(`${boldMarkdownV2(key)}: ${clean(text)}`);
  }
  const units = alert.details.failed_units;
  if (Array.isArray(units)) {
    for (const unit of units.slice(0, 5)) {
      const u = unit as Record<string, unknown>;
      const text = valueText(`${String(u.unit_id ?? "").slice(0, 8)} (${u.dimension_id ?? "?"}): ${u.error ?? ""}`);
      if (text !== undefined) details.push(`• ${clean(text)}`);
    }
  }
  const fix = valueText(alert.details.fix);
  if (fix !== undefined) details.push(`${boldMarkdownV2("fix")}: \`${redactSecrets(fix, secrets).replace(/[`\\]/g, (c) => `\\${c}`)}\``);
  if (details.length > 0) lines.push("", ...details);
  return lines.join("\n");
}

/** The messages of an alert: with a photo, its caption (the first piece that fits 1024 characters) and the rest as texts. */
export function alertMessages(text: string, withPhoto: boolean): { caption?: string; texts: string[] } {
  if (!withPhoto) return { texts: splitMarkdownV2(text) };
  const [caption, ...rest] = splitMarkdownV2(text, MAX_CAPTION_CHARS);
  return { caption, texts: rest.length > 0 ? splitMarkdownV2(rest.join("")) : [] };
}
