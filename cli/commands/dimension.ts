/** `mdame dimension list|show|add|set|pause|resume|schema`: a dimension's configuration through the API, and its file's JSON Schema. */
import { writeFileSync } from "node:fs";
import { type Dimension, DimensionConfig, DimensionPatch, describeIssues } from "../../shared/contracts/dimension.ts";
import { dimensionJsonSchemaText } from "../../shared/contracts/dimension-schema.ts";
import { type DimensionPublishing, runStart } from "../../shared/contracts/publishing.ts";
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

/** One dimension, field by field. Pure, for tests. */
export function formatDimension(d: Dimension): string[] {
  return [
    `dimension ${d.id}  ${d.active ? "active" : "paused (new runs leave it out)"}`,
    `  display_name         ${d.display_name}`,
    `  language             ${d.language}`,
    `  tts_voice            ${d.tts_voice}`,
    `  tts_rate             ${d.tts_rate}`,
    `  trend_geo            ${d.trend_geo}`,
    `  style                palette ${d.style.palette.join(" ")}, motion ${d.style.motion}, captions ${d.style.caption_font}`,
    `  safety_profile       blocked terms: ${d.safety_profile.blocked_terms.length === 0 ? "(none)" : d.safety_profile.blocked_terms.join(", ")}`,
    `  daily_limit          ${d.daily_limit}`,
    `  narration words      ${d.narration_min_words}-${d.narration_max_words}`,
    ...formatPublishing(d.publishing, d.language),
    `  accounts             ${d.accounts} (${d.active_accounts} active)${d.accounts === 0 ? ": connect one with `mdame account connect youtube --dimension " + d.id + "`" : ""}`,
  ];
}

/** The publishing settings, and when the day's production starts. Pure, for tests. */
export function formatPublishing(p: DimensionPublishing, language: string): string[] {
  const start = runStart(p);
  const startRule = p.run_time !== null ? "run_time" : p.publish_time !== null ? "4 h before publish_time" : "no time set";
  return [
    `  category_id          ${p.category_id}`,
    `  privacy_status       ${p.privacy_status}`,
    `  time_zone            ${p.time_zone}`,
    `  publish_time         ${p.publish_time === null ? "(when uploaded)" : p.publish_time}`,
    `  run_time             ${start.time} ${start.time_zone} (${startRule})`,
    `  made_for_kids        ${p.made_for_kids}`,
    `  synthetic media      ${p.contains_synthetic_media ? "declared" : "not declared"}`,
    `  audio language       ${p.default_audio_language ?? `${language} (the dimension's language)`}`,
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
  if (id !== undefined && id !== command.id) throw new CliError(`${command.file} is for dimension ${JSON.stringify(id)}, not ${command.id}: an id cannot change`, EXIT.usage);
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
