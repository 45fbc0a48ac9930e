/** `mdame dimension list|show|add|set|pause|resume|schema`: a dimension's configuration through the API, and its file's JSON Schema. */
import { writeFileSync } from "node:fs";
import { describeIssues, type Dimension, DIMENSION_SETTINGS, DimensionConfig, DimensionPatch } from "../../shared/contracts/dimension.ts";
import { LlmTask } from "../../shared/contracts/llm.ts";
import { dimensionJsonSchemaText } from "../../shared/contracts/dimension-schema.ts";
import { runStart } from "../../shared/contracts/publishing.ts";
import type { ApiClient } from "../api-client.ts";
import { readConfigFile } from "../config-file.ts";
import { CliError, EXIT } from "../errors.ts";
import { type CommandContext, formatTable, printJson, printLine, printLines } from "../output.ts";

/** A config that fails its contract: every problem on its own line, then exit 2 with nothing sent. */
function invalidConfig(source: string, issues: Parameters<typeof describeIssues>[0]): CliError {
  return new CliError(`${source} is not a valid dimension configuration:\n${describeIssues(issues).map((l) => `  ${l}`).join("\n")}`, EXIT.usage);
}

/** The dimensions as table lines. Pure, for tests. */
export function formatDimensionList(dimensions: Dimension[], width?: number): string[] {
  if (dimensions.length === 0) return ["no dimensions yet: add one with `mdame dimension add --file <config>`"];
  return formatTable(
    ["id", "state", "lang", "voice", "geo", "daily", "words", "accounts", "name"],
    dimensions.map((d) => [
      d.id,
      d.active ? "active" : "paused",
      d.language,
      `${d.tts_voice} ${d.tts_rate}`,
      d.trend_geo,
      String(d.daily_limit),
      `${d.narration_min_words}-${d.narration_max_words}`,
      `${d.active_accounts}/${d.accounts}`,
      d.display_name,
    ]),
    width,
  );
}

/** Where a value starts on a `show` line: after the longest label (`narration_min_words`, nested `contains_synthetic_media`). */
const VALUE_COLUMN = 32;

function fieldLine(depth: number, key: string, value?: string): string {
  const label = `${"  ".repeat(depth)}${key}`;
  return value === undefined ? label : `${label.padEnd(VALUE_COLUMN - 1)} ${value}`;
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return "(none)";
  if (Array.isArray(value)) return value.length === 0 ? "(none)" : value.map(scalarText).join(", ");
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** What a null (or left-out) setting means, by its path; the rest print "(none)". */
const UNSET_MEANING: Record<string, string> = {
  tts_fallback_voice: "(none: the language's default Gemini voice, docs/reference/voice.md)",
  music: "(none: voice only)",
  budget: "(none: no spend cap)",
  "budget.daily_usd": "(no daily cap)",
  "budget.monthly_usd": "(no monthly cap)",
  alerts: "(none: the environment's chat, TELEGRAM_CHAT_ID)",
  "alerts.telegram_chat_id": "(the environment's chat, TELEGRAM_CHAT_ID)",
  review: "(none: videos publish without review)",
  "publishing.publish_time": "(when uploaded)",
  "adapt.daily_volume.min": "(daily_limit)",
  "adapt.daily_volume.max": "(daily_limit)",
  "adapt.video_length.target_s": "(none: the whole narration range, no length learning)",
};

/** Lines of one setting and, for a section, of each of its fields one level deeper. */
function settingLines(path: string, key: string, value: unknown, depth: number, d: Dimension): string[] {
  const special = SPECIAL[path]?.(value, d, depth + 1);
  if (special !== undefined) return typeof special === "string" ? [fieldLine(depth, key, special)] : [fieldLine(depth, key), ...special];
  if ((value === null || value === undefined) && UNSET_MEANING[path]) return [fieldLine(depth, key, UNSET_MEANING[path])];
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return [fieldLine(depth, key), ...Object.entries(value).flatMap(([k, v]) => settingLines(`${path}.${k}`, k, v, depth + 1, d))];
  }
  return [fieldLine(depth, key, scalarText(value))];
}

/** A setting's value, or the whole lines under its name (at `depth`). */
type Special = (value: unknown, d: Dimension, depth: number) => string | string[] | undefined;

const routeText = (routes: { provider: string; model?: string }[]) => routes.map((r) => `${r.provider} ${r.model ?? "(its default model)"}`).join(" > ");

/** Settings shown otherwise than field by field: orders as arrows, sources one a line, what a run derives. */
const SPECIAL: Record<string, Special> = {
  "style.palette": (v) => (v as string[]).join(" "),
  "visuals.backends": (v) => (v as string[]).join(" > "),
  sources: (v, _d, depth) =>
    (v as Record<string, unknown>[]).map((source) => {
      const fields = Object.entries(source).map(([k, x]) => `${k} ${scalarText(x)}`);
      if (source.kind === "google_trends" && source.geo === undefined) fields.push("geo (trend_geo)");
      return `${"  ".repeat(depth)}- ${fields.join(", ")}`;
    }),
  llm: (v, _d, depth) => {
    const routing = v as Record<string, { provider: string; model?: string }[] | undefined>;
    return LlmTask.options.map((task) => fieldLine(depth, task, routing[task] ? routeText(routing[task]) : "(not set: gemini, its default model)"));
  },
  "publishing.run_time": (_v, d) => {
    const start = runStart(d.publishing);
    const rule = d.publishing.run_time !== null ? "run_time" : d.publishing.publish_time !== null ? "4 h before publish_time" : "no time set";
    return `${start.time} ${start.time_zone} (${rule})`;
  },
  "publishing.contains_synthetic_media": (v) => `${v} (${v ? "declared" : "not declared"})`,
  "publishing.default_audio_language": (v, d) => (v === null ? `${d.language} (the dimension's language)` : String(v)),
};

/** One dimension, every setting of its configuration, sections indented. Pure, for tests. */
export function formatDimension(d: Dimension): string[] {
  const settings = DIMENSION_SETTINGS.filter((key) => key !== "id").flatMap((key) => settingLines(key, key, d[key], 1, d));
  return [
    `dimension ${d.id}  ${d.active ? "active" : "paused (new runs leave it out)"}`,
    ...settings,
    fieldLine(
      1,
      "accounts",
      `${d.accounts} (${d.active_accounts} active)${d.accounts === 0 ? ": connect one with `mdame account connect youtube --dimension " + d.id + "`" : ""}`,
    ),
    fieldLine(1, "updated_at", d.updated_at),
  ];
}

function print(ctx: CommandContext, json: boolean, dimension: Dimension, headline: string | null): number {
  if (json) printJson(ctx.out, dimension);
  else {
    if (headline) printLine(ctx.out, headline);
    printLines(ctx.out, formatDimension(dimension));
  }
  return EXIT.ok;
}

export async function dimensionListCommand(command: { json: boolean }, api: ApiClient, ctx: CommandContext): Promise<number> {
  const { dimensions } = await api.listDimensions();
  if (command.json) printJson(ctx.out, dimensions);
  else printLines(ctx.out, formatDimensionList(dimensions, ctx.out.columns || undefined));
  return EXIT.ok;
}

export async function dimensionShowCommand(command: { id: string; json: boolean }, api: ApiClient, ctx: CommandContext): Promise<number> {
  return print(ctx, command.json, await api.showDimension(command.id), null);
}

export async function dimensionAddCommand(command: { file: string; json: boolean }, api: ApiClient, ctx: CommandContext): Promise<number> {
  const parsed = DimensionConfig.safeParse(readConfigFile(command.file));
  if (!parsed.success) throw invalidConfig(command.file, parsed.error.issues);
  const dimension = await api.addDimension(parsed.data);
  return print(ctx, command.json, dimension, `dimension ${dimension.id} added`);
}

export async function dimensionSetCommand(
  command: { id: string; file: string | null; fields: Record<string, string | number>; publishing: Record<string, string | boolean | null>; json: boolean },
  api: ApiClient,
  ctx: CommandContext,
): Promise<number> {
  const fromFile = command.file === null ? {} : readConfigFile(command.file);
  if (typeof fromFile !== "object" || fromFile === null || Array.isArray(fromFile)) {
    throw new CliError(`${command.file} must hold a JSON object of the fields to change`, EXIT.usage);
  }
  // `show --json` output can be edited and given back whole: what cannot change is dropped.
  const { id, active: _a, created_at: _c, updated_at: _u, accounts: _n, active_accounts: _m, ...fields } = fromFile as Record<string, unknown>;
  if (id !== undefined && id !== command.id) {
    throw new CliError(`${command.file} is for dimension ${JSON.stringify(id)}, not ${command.id}: an id cannot change`, EXIT.usage);
  }
  const publishing = Object.keys(command.publishing).length === 0
    ? {}
    : { publishing: { ...(typeof fields.publishing === "object" ? fields.publishing : {}), ...command.publishing } };
  const parsed = DimensionPatch.safeParse({ ...fields, ...command.fields, ...publishing });
  if (!parsed.success) throw invalidConfig(command.file ?? "the flags", parsed.error.issues);
  const dimension = await api.setDimension(command.id, parsed.data);
  return print(ctx, command.json, dimension, `dimension ${dimension.id} changed: ${Object.keys(parsed.data).join(", ")}`);
}

export async function dimensionActiveCommand(command: { id: string; json: boolean }, active: boolean, api: ApiClient, ctx: CommandContext): Promise<number> {
  const dimension = await api.setDimensionActive(command.id, active);
  if (command.json) printJson(ctx.out, dimension);
  else printLine(ctx.out, `dimension ${dimension.id} ${active ? "resumed: new runs pick it" : "paused: new runs leave it out"}`);
  return EXIT.ok;
}

/** Prints the JSON Schema of a configuration file, or writes it to `--out`. */
export function dimensionSchemaCommand(command: { out: string | null }, ctx: CommandContext): number {
  const text = dimensionJsonSchemaText();
  if (command.out === null) {
    ctx.out.write(text);
    return EXIT.ok;
  }
  try {
    writeFileSync(command.out, text);
  } catch (error) {
    throw new CliError(`cannot write ${command.out}: ${(error as Error).message}`, EXIT.usage);
  }
  printLine(ctx.out, `wrote the dimension configuration schema to ${command.out}`);
  return EXIT.ok;
}
