/**
 * `mdame review list|show|approve|reject` (docs/guides/review.md): the rendered videos waiting for
 * the operator, one of them with its script, scenes and quality gate, and the two decisions. An
 * approval may replace the title or description (the limits of a script's own); a rejection's
 * reason reaches the weekly report and the adaptive engine's evidence.
 */
import { ApproveReviewBody, RejectReviewBody, type Review, type ReviewDetail, type ReviewSummary } from "../../shared/contracts/review.ts";
import { describeIssues } from "../../shared/contracts/dimension.ts";
import { DIMENSION_ID } from "../../shared/contracts/dimension-id.ts";
import type { ApiClient } from "../api-client.ts";
import { type CommandSpec, JSON_FLAG } from "../command-spec.ts";
import { EXIT, UsageError } from "../errors.ts";
import { type CommandContext, formatAge, formatTable, printJson, printLines } from "../output.ts";
import { uuid } from "../../shared/contracts/columns.ts";

export type ReviewCommand =
  | { name: "review list"; dimension: string | null; json: boolean }
  | { name: "review show"; unit: string; json: boolean }
  | { name: "review approve"; unit: string; edits: ApproveReviewBody; json: boolean }
  | { name: "review reject"; unit: string; reason: string; json: boolean };

const UNIT = { name: "unit", required: true, description: "the work unit's id (from review list)" };
/** What a rejection records when the operator gives no reason. */
export const NO_REASON = "no reason given";

export const REVIEW_SPECS: CommandSpec[] = [
  {
    words: ["review", "list"],
    positionals: [],
    flags: [{ name: "dimension", kind: "string", value: "<id>", description: "only this dimension" }, JSON_FLAG],
    summary: "list the rendered videos waiting for review, the soonest to expire first",
  },
  {
    words: ["review", "show"],
    positionals: [UNIT],
    flags: [JSON_FLAG],
    summary: "show one video's review: script, scenes, quality gate, and a link that plays the render",
  },
  {
    words: ["review", "approve"],
    positionals: [UNIT],
    flags: [
      { name: "title", kind: "string", value: "<text>", description: "publish with this title instead of the script's" },
      { name: "description", kind: "string", value: "<text>", description: "publish with this description instead of the script's" },
      JSON_FLAG,
    ],
    summary: "approve a video: it is published through the publish stage, once per account",
    details: "Approving it again changes nothing. The quota of each upload is reserved only now.",
  },
  {
    words: ["review", "reject"],
    positionals: [UNIT],
    flags: [
      { name: "reason", kind: "string", value: "<text>", description: `why, for the weekly report and the adaptive engine (default: ${NO_REASON})` },
      JSON_FLAG,
    ],
    summary: "reject a video: it is never uploaded, and its run closes once nothing else is open",
    details: "Rejecting it again changes nothing; an approved video cannot be rejected.",
  },
];

function bodyOrUsage<T>(parsed: { success: true; data: T } | { success: false; error: { issues: Parameters<typeof describeIssues>[0] } }, command: string): T {
  if (!parsed.success) throw new UsageError(describeIssues(parsed.error.issues).join("; "), command);
  return parsed.data;
}

/** Parses a `review` command (args.ts has checked the flags' kinds and the positionals' count). */
export function parseReview(command: string, positionals: string[], flags: Map<string, string | number | boolean>): ReviewCommand {
  const json = flags.get("json") === true;
  if (command === "review list") {
    const dimension = flags.has("dimension") ? String(flags.get("dimension")) : null;
    if (dimension !== null && !DIMENSION_ID.test(dimension)) throw new UsageError(`not a dimension id: ${JSON.stringify(dimension)}`, command);
    return { name: "review list", dimension, json };
  }
  const unit = positionals[0]!;
  if (!uuid.safeParse(unit).success) throw new UsageError(`not a work unit id (a uuid): ${JSON.stringify(unit)}`, command);
  const id = unit.toLowerCase();
  if (command === "review show") return { name: "review show", unit: id, json };
  if (command === "review approve") {
    const given = Object.fromEntries(["title", "description"].filter((k) => flags.has(k)).map((k) => [k, String(flags.get(k))]));
    return { name: "review approve", unit: id, edits: bodyOrUsage(ApproveReviewBody.safeParse(given), command), json };
  }
  const { reason } = bodyOrUsage(RejectReviewBody.safeParse({ reason: flags.has("reason") ? String(flags.get("reason")) : NO_REASON }), command);
  return { name: "review reject", unit: id, reason, json };
}

/** The waiting videos as a table. Pure, for tests. */
export function formatReviewList(rows: ReviewSummary[], nowMs: number, width?: number): string[] {
  if (rows.length === 0) return ["no video waits for review"];
  return formatTable(
    ["unit", "dimension", "waiting", "expires", "then", "gate", "title"],
    rows.map((r) => [
      r.unit_id,
      r.dimension_id,
      formatAge(r.requested_at, nowMs),
      r.expires_at.slice(0, 16).replace("T", " "),
      r.on_expiry,
      r.quality_passed === null ? "-" : r.quality_passed ? "passed" : "failed",
      r.title ?? "-",
    ]),
    width ?? 160,
  );
}

/** One review as lines. Pure, for tests. */
export function formatReviewDetail(r: ReviewDetail): string[] {
  const decided = r.decision === null
    ? `waiting since ${r.requested_at} until ${r.expires_at}, then ${r.on_expiry === "publish" ? "published" : "rejected"}`
    : `${r.decision} by ${r.decided_by} at ${r.decided_at}${r.reason ? `: ${r.reason}` : ""}`;
  const lines = [
    `review of unit ${r.unit_id} (${r.dimension_id}, run ${r.run_id}): ${decided}`,
    `stage        ${r.stage}`,
    `topic        ${r.topic ?? "-"}`,
    `title        ${r.script.title ?? "-"}`,
    `description  ${(r.script.description ?? "-").replace(/\s*\n\s*/g, " / ")}`,
    `hashtags     ${r.script.hashtags.join(" ") || "-"}`,
    `hook         ${r.script.hook ?? "-"}`,
    `video        ${r.video.video_key ?? "-"}${r.video.duration_s === null ? "" : ` (${r.video.duration_s} s)`}`,
    `play         ${r.video.signed_url ?? "(storage has no copy)"}`,
    `quality gate ${r.quality === null ? "-" : r.quality.passed === true ? "passed" : "failed"}`,
    `scenes       ${r.scenes.length}`,
    ...r.scenes.map((s) => `  ${String(s.index + 1).padStart(2)}. ${s.duration_s} s ${s.backend ?? "-"}: ${s.prompt}`),
  ];
  if (r.decision === null) lines.push("", `approve: mdame review approve ${r.unit_id}`, `reject:  mdame review reject ${r.unit_id} --reason "..."`);
  return lines;
}

function decisionLine(r: Review): string {
  if (r.decision === "approved") {
    const edited = Object.keys(r.edits ?? {});
    return `approved unit ${r.unit_id}${edited.length > 0 ? ` with a new ${edited.join(" and ")}` : ""}: it is queued for publishing`;
  }
  return `rejected unit ${r.unit_id} (${r.reason ?? NO_REASON}): it will not be uploaded`;
}

export async function reviewCommand(command: ReviewCommand, api: ApiClient, ctx: CommandContext): Promise<number> {
  switch (command.name) {
    case "review list": {
      const { reviews } = await api.listReviews(command.dimension);
      if (command.json) printJson(ctx.out, reviews);
      else printLines(ctx.out, formatReviewList(reviews, ctx.now(), ctx.out.columns || undefined));
      return EXIT.ok;
    }
    case "review show": {
      const review = await api.getReview(command.unit);
      if (command.json) printJson(ctx.out, review);
      else printLines(ctx.out, formatReviewDetail(review));
      return EXIT.ok;
    }
    case "review approve":
    case "review reject": {
      const review = command.name === "review approve"
        ? await api.approveReview(command.unit, command.edits)
        : await api.rejectReview(command.unit, command.reason);
      if (command.json) printJson(ctx.out, review);
      else printLines(ctx.out, [decisionLine(review)]);
      return EXIT.ok;
    }
  }
}
