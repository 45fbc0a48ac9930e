/**
 * `mdame storage usage`: the database's size and largest tables, Storage's size by folder.
 * `mdame housekeeping [--dry-run]`: one retention pass now (what would go, or what went), and
 * `mdame housekeeping settings [--<setting> <n>] [--reset <setting>]`: the retention settings
 * (docs/reference/retention.md).
 */
import {
  HOUSEKEEPING_SETTING_NAMES,
  type HousekeepingAnswer,
  type HousekeepingSetting,
  HousekeepingSettingName,
  type StorageUsage,
} from "../../shared/contracts/housekeeping.ts";
import type { ApiClient } from "../api-client.ts";
import { type CommandSpec, type FlagSpec, JSON_FLAG } from "../command-spec.ts";
import { EXIT, UsageError } from "../errors.ts";
import { type CommandContext, formatTable, printJson, printLines } from "../output.ts";

export type StorageCommand =
  | { name: "storage usage"; tables: number; json: boolean }
  | { name: "housekeeping"; dryRun: boolean; json: boolean }
  | { name: "housekeeping settings"; changes: Record<string, number | null>; json: boolean };

const flagOf = (name: string) => name.replaceAll("_", "-");
const SETTING_FLAGS: FlagSpec[] = HOUSEKEEPING_SETTING_NAMES.map((name) => ({
  name: flagOf(name),
  kind: "integer",
  value: "<n>",
  description: name === "batch_size" ? "rows (or objects) each kind deletes at most per pass" : `days (${name.replace(/_days$/, "").replaceAll("_", " ")})`,
  min: 1,
  max: name === "batch_size" ? 10000 : 3650,
}));

export const STORAGE_SPECS: CommandSpec[] = [
  {
    words: ["storage", "usage"],
    positionals: [],
    flags: [{ name: "tables", kind: "integer", value: "<n>", description: "how many of the largest tables (default 15)", min: 1, max: 200 }, JSON_FLAG],
    summary: "show the database's size and largest tables, and Storage's size by folder",
    details: "Storage sizes come from listing each folder the engine writes (voice, scenes, renders, music libraries, report charts).",
  },
  {
    words: ["housekeeping"],
    positionals: [],
    flags: [{ name: "dry-run", kind: "boolean", description: "count what would be deleted; delete nothing" }, JSON_FLAG],
    summary: "run a retention pass now: expired scene cache entries, old renders and voices, LLM cache, events, queue archives",
    details: "The daily pg_cron job mdame-housekeeping does the same at 03:30 UTC, in bounded batches (docs/reference/retention.md).",
  },
  {
    words: ["housekeeping", "settings"],
    positionals: [],
    flags: [...SETTING_FLAGS, { name: "reset", kind: "string", value: "<setting>", description: "put one setting back on its default" }, JSON_FLAG],
    summary: "show or change the retention settings",
  },
];

export function parseStorage(command: string, flags: Map<string, string | number | boolean>): StorageCommand {
  const json = flags.get("json") === true;
  if (command === "storage usage") return { name: "storage usage", tables: (flags.get("tables") as number | undefined) ?? 15, json };
  if (command === "housekeeping") return { name: "housekeeping", dryRun: flags.get("dry-run") === true, json };
  const changes: Record<string, number | null> = {};
  for (const name of HOUSEKEEPING_SETTING_NAMES) {
    const value = flags.get(flagOf(name));
    if (typeof value === "number") changes[name] = value;
  }
  const reset = flags.get("reset");
  if (typeof reset === "string") {
    const name = HousekeepingSettingName.safeParse(reset.replaceAll("-", "_"));
    if (!name.success) throw new UsageError(`--reset takes one of ${HOUSEKEEPING_SETTING_NAMES.join(", ")}, not ${JSON.stringify(reset)}`, command);
    if (name.data in changes) throw new UsageError(`${name.data} is both set and reset`, command);
    changes[name.data] = null;
  }
  return { name: "housekeeping settings", changes, json };
}

/** A byte count for people: 1.5 GiB, 230 MiB, 12 KiB, 900 B. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatStorageUsage(usage: StorageUsage): string[] {
  return [
    `database ${formatBytes(usage.database.database_bytes)}; storage ${
      formatBytes(usage.storage.total_bytes)
    } in ${usage.storage.total_objects} objects (listed on ${usage.storage.backend}); ${usage.database.pending_storage_deletions} storage deletions pending`,
    "",
    ...formatTable(["table", "size", "indexes"], usage.database.tables.map((t) => [t.name, formatBytes(t.total_bytes), formatBytes(t.index_bytes)])),
    "",
    ...formatTable(["storage folder", "objects", "size"], usage.storage.prefixes.map((p) => [`${p.prefix}/`, String(p.objects), formatBytes(p.bytes)])),
  ];
}

export function formatHousekeeping(answer: HousekeepingAnswer): string[] {
  const lines = [
    answer.dry_run ? `dry run at ${answer.engine_now} (engine clock): nothing was deleted` : `housekeeping pass at ${answer.engine_now} (engine clock)`,
  ];
  lines.push(...formatTable(
    ["kind", "due", answer.dry_run ? "would delete now" : "deleted", "storage keys queued"],
    answer.kinds.map((k) => {
      const batch = answer.settings.find((s) => s.name === "batch_size")?.value ?? k.due;
      return [k.kind, String(k.due), String(answer.dry_run ? Math.min(k.due, batch) : k.deleted), answer.dry_run ? "-" : String(k.storage_keys_queued)];
    }),
  ));
  if (!answer.dry_run) {
    const d = answer.storage_deletions;
    lines.push(`storage: ${d.removed} objects removed, ${d.failed} removals failed (retried later), ${d.pending} still pending`);
  }
  return lines;
}

function formatSettings(settings: HousekeepingSetting[]): string[] {
  return formatTable(
    ["setting", "value", "default", "range"],
    settings.map((s) => [s.name, String(s.value), String(s.default_value), `${s.min_value}..${s.max_value}`]),
  );
}

export async function storageCommand(command: StorageCommand, api: ApiClient, ctx: CommandContext): Promise<number> {
  switch (command.name) {
    case "storage usage": {
      const usage = await api.storageUsage(command.tables);
      if (command.json) printJson(ctx.out, usage);
      else printLines(ctx.out, formatStorageUsage(usage));
      return EXIT.ok;
    }
    case "housekeeping": {
      const answer = await api.housekeeping(command.dryRun);
      if (command.json) printJson(ctx.out, answer);
      else printLines(ctx.out, formatHousekeeping(answer));
      return EXIT.ok;
    }
    case "housekeeping settings": {
      const { settings } = Object.keys(command.changes).length === 0 ? await api.housekeepingSettings() : await api.setHousekeepingSettings(command.changes);
      if (command.json) printJson(ctx.out, { settings });
      else printLines(ctx.out, formatSettings(settings));
      return EXIT.ok;
    }
  }
}
