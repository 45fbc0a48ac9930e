/**
 * Environment checks: every variable parsed with the schema the components use (`loadEnv`), and
 * the production guard (ENV=prod refuses emulator, i.e. loopback, URLs).
 */
import { ConfigError, EngineEnv, isLoopbackUrl, loadEnv, loopbackAllowanceOf, refusedLoopbackUrls } from "../../shared/config/env.ts";
import { type CheckResult, fail, ok, warn } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "environment";
const ALL_KEYS = Object.keys(EngineEnv.shape) as (keyof EngineEnv)[];

/** `  NAME: problem` lines of a loadEnv error, as [name, problem] pairs. */
function issuesOf(error: ConfigError): [string, string][] {
  return error.message
    .split("\n")
    .slice(1)
    .map((line) => /^\s+([A-Z0-9_]+): (.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!]);
}

export function checkEnvironment(config: DoctorConfig): CheckResult[] {
  const results: CheckResult[] = [];
  const env = config.env;
  let parsed: Partial<EngineEnv> | undefined;
  try {
    parsed = loadEnv(ALL_KEYS, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const issues = issuesOf(error);
    for (const [name, problem] of issues) results.push(fail(FAMILY, name, problem, hintFor(name)));
    // Parsed fine but refused by the production guard: reported below, like the components say it.
    if (issues.length === 0 && !error.message.startsWith("ENV=prod refuses")) results.push(fail(FAMILY, "environment", error.message));
  }
  if (parsed || results.length === 0) {
    const local = env.STORAGE_BACKEND === "local" ? " (STORAGE_BACKEND=local: no Supabase Storage settings needed)" : "";
    results.push(ok(FAMILY, "variables", `every variable the components read is set and valid${local}`));
  }
  results.push(checkGuard(env));
  return results;
}

/** The production guard, named variable by variable (defaults included, as loadEnv applies them). */
function checkGuard(env: Record<string, string | undefined>): CheckResult {
  if (env.ENV !== "prod") {
    const envName = env.ENV === "dev" ? "ENV=dev" : "ENV is not prod";
    return ok(FAMILY, "guard", `${envName}: emulator (loopback) URLs are allowed`);
  }
  let loopback: string[];
  try {
    const urls = Object.fromEntries(ALL_KEYS.filter((k) => k.endsWith("_URL")).map((k) => [k, env[k]]));
    loopback = refusedLoopbackUrls(urls, env.MDAME_ALLOW_LOOPBACK);
  } catch (error) {
    return fail(FAMILY, "guard", (error as Error).message, "fix MDAME_ALLOW_LOOPBACK (docs/guides/deploy.md, one machine)");
  }
  if (loopback.length > 0) {
    const allowable = [...new Set(loopback.map(loopbackAllowanceOf).filter((n) => n !== undefined))];
    return fail(
      FAMILY,
      "guard",
      `ENV=prod refuses emulator URLs: ${loopback.join(", ")}`,
      `point ${loopback.join(", ")} at the real services (unset the base URLs to use Google's and Microsoft's defaults)${
        allowable.length ? `; a service of your own on this machine is allowed by name: MDAME_ALLOW_LOOPBACK=${allowable.join(",")}` : ""
      }`,
    );
  }
  if (env.DB_URL && isLoopbackUrl(env.DB_URL.replace(/^postgres(ql)?:/, "http:").replace(/\/\/[^@/]*@/, "//"))) {
    return warn(
      FAMILY,
      "guard",
      "ENV=prod with a database on this machine (DB_URL is a loopback address)",
      "fine for an engine run whole on one machine; workers elsewhere need a reachable DB_URL",
    );
  }
  return ok(FAMILY, "guard", "ENV=prod: no emulator URL configured");
}
