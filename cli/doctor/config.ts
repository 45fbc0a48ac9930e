/**
 * The configuration doctor checks: the variables the components read, each taken from the process
 * environment first and from the local stack's `.local/stack.env` otherwise, with where it came from.
 */
import { readFileSync } from "node:fs";
import { EngineEnv, withSupabaseNames } from "../../shared/config/env.ts";
import { parseEnvFile } from "../../stack/stack-env.ts";

/** Every variable of shared/config/env.ts, plus the Supabase name DB_URL falls back to and the log level. */
const DOCTOR_VARIABLES: readonly string[] = [...Object.keys(EngineEnv.shape), "SUPABASE_DB_URL", "LOG_LEVEL"];

/**
 * Variables whose values are never printed: every key, secret, token and password among them,
 * by name, so a variable added later is masked too.
 */
const SECRET_VARIABLES = new Set(DOCTOR_VARIABLES.filter((name) => /(^|_)(KEY|SECRET|TOKEN|PASSWORD)(S_PREVIOUS)?$/.test(name)));

/** Connection strings: printed with their password masked. */
const URL_WITH_PASSWORD = new Set(["DB_URL", "SUPABASE_DB_URL"]);

interface ConfigValue {
  name: string;
  /** Undefined when not set anywhere and without a default. */
  value?: string;
  /** "environment", the stack.env path, "SUPABASE_DB_URL" (derived from that variable), "default", or "not set". */
  source: string;
}

export interface DoctorConfig {
  /** What the components would see: both sources merged, Supabase names applied (no defaults). */
  env: Record<string, string | undefined>;
  values: ConfigValue[];
  /** The stack.env path and whether it could be read. */
  stackEnvFile: { path: string; found: boolean };
  /** Every secret value present, so the report can be scrubbed of them. */
  secrets: string[];
}

const present = (v: string | undefined): v is string => v !== undefined && v.trim() !== "";

function readStackEnv(path: string): Record<string, string> | undefined {
  try {
    return parseEnvFile(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** Reads every variable the engine reads, per variable from `processEnv` first, then `stackEnvFile`. */
export function resolveDoctorConfig(processEnv: Record<string, string | undefined>, stackEnvFile: string): DoctorConfig {
  const file = readStackEnv(stackEnvFile);
  const raw: Record<string, string | undefined> = {};
  const sources: Record<string, string> = {};
  for (const name of DOCTOR_VARIABLES) {
    if (present(processEnv[name])) {
      raw[name] = processEnv[name];
      sources[name] = "environment";
    } else if (file && present(file[name])) {
      raw[name] = file[name];
      sources[name] = stackEnvFile;
    }
  }
  const env = withSupabaseNames(raw);
  const shape = EngineEnv.shape as Record<string, { safeParse(v: unknown): { success: boolean; data?: unknown } }>;
  const values: ConfigValue[] = DOCTOR_VARIABLES.map((name) => {
    if (sources[name]) return { name, value: raw[name], source: sources[name]! };
    if (present(env[name])) {
      // Filled in by withSupabaseNames from the Supabase name (or the reverse).
      const from = {
        DB_URL: "SUPABASE_DB_URL",
        SERVICE_ROLE_KEY: "SUPABASE_SERVICE_ROLE_KEY",
        SUPABASE_SERVICE_ROLE_KEY: "SERVICE_ROLE_KEY",
        FUNCTIONS_URL: "SUPABASE_URL",
        STORAGE_BUCKET: "ENV",
      }[name];
      return { name, value: env[name], source: from ? `from ${from}` : "derived" };
    }
    const fallback = shape[name]?.safeParse(undefined);
    if (fallback?.success && typeof fallback.data === "string") return { name, value: fallback.data, source: "default" };
    return { name, source: "not set" };
  });
  // A list of rotated keys is scrubbed whole and entry by entry.
  const secrets = [...SECRET_VARIABLES].flatMap((name) => [env[name], ...(env[name]?.split(/[\s,]+/) ?? [])]).filter(present);
  for (const name of URL_WITH_PASSWORD) {
    const password = passwordOf(env[name]);
    // A short password ("postgres" on the local stack) would scrub ordinary words from the report;
    // the connection string is never printed unmasked anyway.
    if (password && password.length >= 10) secrets.push(password);
  }
  return { env, values, stackEnvFile: { path: stackEnvFile, found: file !== undefined }, secrets };
}

function passwordOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === "" ? undefined : password;
  } catch {
    return undefined;
  }
}

/** A value as the report may print it: secrets as "set (N characters)", passwords in URLs masked. */
export function displayValue(item: ConfigValue): string {
  if (item.value === undefined) return "-";
  if (SECRET_VARIABLES.has(item.name)) return `set (${item.value.length} characters)`;
  if (URL_WITH_PASSWORD.has(item.name)) {
    try {
      const url = new URL(item.value);
      if (url.password) url.password = "*****";
      return url.toString();
    } catch {
      return "(not a URL)";
    }
  }
  return item.value;
}

/**
 * Replaces every occurrence of a secret in `text` with `[redacted]`: error messages of client
 * libraries may quote what they were given, and the report must never carry a secret.
 */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  return out;
}
