/**
 * `mdame adapt`: the adaptive engine by hand (docs/reference/adaptive.md). `adapt --dry-run` shows what the
 * decisions would do and on which evidence, changing nothing; `adapt` applies them now; `adapt list`
 * shows the recorded moves; `adapt revert <id>` gives the value before a move back; `adapt pin` /
 * `unpin` keep a parameter where it is or let it move again.
 */
import { type Adaptation, AdaptParameter, type AdaptReport } from "../../shared/contracts/adapt.ts";
import type { ApiClient } from "../api-client.ts";
import { type CommandSpec, JSON_FLAG } from "../command-spec.ts";
import { EXIT, UsageError } from "../errors.ts";
import { type CommandContext, formatAge, formatTable, printJson, printLines } from "../output.ts";
import { DIMENSION_ID } from "../../shared/contracts/dimension-id.ts";

export type AdaptCommand =
  | { name: "adapt"; dimension: string | null; dryRun: boolean; json: boolean }
  | { name: "adapt list"; dimension: string | null; limit: number; json: boolean }
  | { name: "adapt revert"; id: string; json: boolean }
  | { name: "adapt pin" | "adapt unpin"; dimension: string; parameter: string; json: boolean };

const DIMENSION_FLAG = { name: "dimension", kind: "string" as const, value: "<id>", description: "only this dimension" };
const PARAMETER_HELP =
  "daily_volume, hook_threshold, video_length, source_weight.<kind>, topic_category.<category>, or a group: source_weights, topic_categories";

export const ADAPT_SPECS: CommandSpec[] = [
  {
    words: ["adapt"],
    positionals: [],
    flags: [{ name: "dry-run", kind: "boolean", description: "show what would move and why; change nothing" }, DIMENSION_FLAG, JSON_FLAG],
    summary: "run the adaptive engine's decisions now (every active dimension, or one)",
    details:
      "Each move is one step within the dimension's adapt bounds, decided on the published videos' retention (docs/reference/adaptive.md). The weekly job does the same on Sunday evening.",
  },
  {
    words: ["adapt", "list"],
    positionals: [],
    flags: [DIMENSION_FLAG, { name: "limit", kind: "integer", value: "<n>", description: "how many moves (default 50)", min: 1, max: 500 }, JSON_FLAG],
    summary: "list the adaptive engine's moves, newest first",
  },
  {
    words: ["adapt", "revert"],
    positionals: [{ name: "id", required: true, description: "the move's id (from adapt list)" }],
    flags: [JSON_FLAG],
    summary: "revert a move: the value before it is in force from the next run",
  },
  {
    words: ["adapt", "pin"],
    positionals: [{ name: "dimension", required: true, description: "the dimension's id" }, { name: "parameter", required: true, description: PARAMETER_HELP }],
    flags: [JSON_FLAG],
    summary: "pin a parameter: the adaptive engine never moves it",
  },
  {
    words: ["adapt", "unpin"],
    positionals: [{ name: "dimension", required: true, description: "the dimension's id" }, { name: "parameter", required: true, description: PARAMETER_HELP }],
    flags: [JSON_FLAG],
    summary: "unpin a parameter: the adaptive engine may move it again",
  },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function dimensionId(value: string, command: string): string {
  if (!DIMENSION_ID.test(value)) throw new UsageError(`not a dimension id (lower-case letters, digits, '-' or '_'): ${JSON.stringify(value)}`, command);
  return value;
}

/** Parses an `adapt` command (args.ts has checked the flags' kinds and the positionals' count). */
export function parseAdapt(command: string, positionals: string[], flags: Map<string, string | number | boolean>): AdaptCommand {
  const json = flags.get("json") === true;
  const dimension = flags.has("dimension") ? dimensionId(String(flags.get("dimension")), command) : null;
  switch (command) {
    case "adapt":
      return { name: "adapt", dimension, dryRun: flags.get("dry-run") === true, json };
    case "adapt list":
      return { name: "adapt list", dimension, limit: (flags.get("limit") as number | undefined) ?? 50, json };
    case "adapt revert": {
      const id = positionals[0]!;
      if (!UUID.test(id)) throw new UsageError(`not an adaptation id (a uuid): ${JSON.stringify(id)}`, command);
      return { name: "adapt revert", id: id.toLowerCase(), json };
    }
    default: {
      const parameter = positionals[1]!;
      if (!AdaptParameter.safeParse(parameter).success) {
        throw new UsageError(`not an adaptive parameter: ${JSON.stringify(parameter)} (${PARAMETER_HELP})`, command);
      }
      return { name: command === "adapt pin" ? "adapt pin" : "adapt unpin", dimension: dimensionId(positionals[0]!, command), parameter, json };
    }
  }
}

/** A dimension's report as lines: its moves, then each comparison with its arms. Pure, for tests. */
function formatAdaptReport(report: AdaptReport): string[] {
  const head = `${report.dimension_id}: ${report.videos} videos with figures; ${report.moves.length === 0 ? "no move" : `${report.moves.length} move(s)`}${
    report.dry_run ? " (dry run: nothing changed)" : ""
  }`;
  const lines = [head];
  for (const m of report.moves) {
    lines.push(`  ${report.dry_run ? "would move" : "moved"} ${m.parameter}: ${m.before} -> ${m.after}${m.id ? ` (${m.id})` : ""}`, `    ${m.reason}`);
  }
  for (const c of report.comparisons) {
    const arms = c.arms.map((a) => `${a.label} n=${a.n}${a.mean === null ? "" : ` mean=${a.mean}`}`).join(" | ");
    lines.push(`  ${c.parameter}${c.platform === null ? "" : ` on ${c.platform}`}: ${c.outcome}${arms ? ` [${arms}${c.t === null ? "" : `; t=${c.t}`}]` : ""}`);
  }
  return lines;
}

/** The moves as a table. Pure, for tests. */
function formatAdaptations(rows: Adaptation[], nowMs: number, width?: number): string[] {
  if (rows.length === 0) return ["no adaptations recorded"];
  return formatTable(
    ["id", "dimension", "parameter", "before", "after", "decided", "state", "reason"],
    rows.map((
      a,
    ) => [
      a.id,
      a.dimension_id,
      a.parameter,
      String(a.before),
      String(a.after),
      formatAge(a.decided_at, nowMs),
      a.reverted_at ? "reverted" : "in force",
      a.reason,
    ]),
    width ?? 160,
  );
}

export async function adaptCommand(command: AdaptCommand, api: ApiClient, ctx: CommandContext): Promise<number> {
  switch (command.name) {
    case "adapt": {
      const answer = await api.adapt({ dimension: command.dimension ?? undefined, dry_run: command.dryRun });
      if (command.json) printJson(ctx.out, answer);
      else printLines(ctx.out, answer.reports.length === 0 ? ["no active dimension"] : answer.reports.flatMap(formatAdaptReport));
      return EXIT.ok;
    }
    case "adapt list": {
      const { adaptations } = await api.listAdaptations(command.dimension, command.limit);
      if (command.json) printJson(ctx.out, adaptations);
      else printLines(ctx.out, formatAdaptations(adaptations, ctx.now(), ctx.out.columns || undefined));
      return EXIT.ok;
    }
    case "adapt revert": {
      const row = await api.revertAdaptation(command.id);
      if (command.json) printJson(ctx.out, row);
      else printLines(ctx.out, [`reverted ${row.parameter} of ${row.dimension_id}: ${row.before} is in force again from the next run`]);
      return EXIT.ok;
    }
    case "adapt pin":
    case "adapt unpin": {
      const pins = await api.setAdaptationPin(command.dimension, command.parameter, command.name === "adapt pin");
      if (command.json) printJson(ctx.out, pins);
      else {printLines(ctx.out, [
          `${command.dimension}: ${command.parameter} ${command.name === "adapt pin" ? "pinned" : "unpinned"}; pinned now: ${pins.pinned.join(", ") || "none"}`,
        ]);}
      return EXIT.ok;
    }
  }
}
