/** Reading a dimension configuration file: JSON, or YAML by its extension (Bun's YAML parser). */
import { readFileSync, statSync } from "node:fs";
import { extname } from "node:path";
import { CliError, EXIT } from "./errors.ts";

/** A configuration is a few KiB; the API refuses bodies past 64 KiB anyway. */
const MAX_CONFIG_BYTES = 64 * 1024;

type YamlParser = { parse(text: string): unknown };

/** The file's content as a value; a missing, oversized or unparsable file is a usage error naming it. */
export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    if (statSync(path).size > MAX_CONFIG_BYTES) throw new CliError(`${path} is over ${MAX_CONFIG_BYTES} bytes: not a dimension configuration`, EXIT.usage);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`, EXIT.usage);
  }
  const yaml = [".yaml", ".yml"].includes(extname(path).toLowerCase());
  let value: unknown;
  try {
    if (!yaml) value = JSON.parse(text);
    else {
      const parser = (globalThis as { Bun?: { YAML?: YamlParser } }).Bun?.YAML;
      if (!parser) throw new Error("YAML needs the Bun runtime (mdame runs on Bun); use a JSON file instead");
      value = parser.parse(text);
    }
  } catch (error) {
    throw new CliError(`${path} is not valid ${yaml ? "YAML" : "JSON"}: ${(error as Error).message}`, EXIT.usage);
  }
  return withoutSchemaKey(value);
}

/**
 * A file's top-level `$schema` (the JSON Schema an editor checks it with, docs/dimension.schema.json)
 * is for the editor, not a setting: it is dropped before the contract sees the file.
 */
function withoutSchemaKey(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, "$schema")) return value;
  const { $schema: _schema, ...rest } = value as Record<string, unknown>;
  return rest;
}
