/**
 * Runs every doctor check on one configuration and builds the report: the independent checks run
 * concurrently, each within its own time limit; the report is scrubbed of every secret value.
 */
import { type CheckResult, describeError, fail } from "./check.ts";
import { displayValue, type DoctorConfig, resolveDoctorConfig, scrub } from "./config.ts";
import { checkCredentialKeys } from "./credential-keys.ts";
import { checkDatabase } from "./database.ts";
import { checkEdgeTts } from "./edge-tts.ts";
import { checkEnvironment } from "./environment.ts";
import { checkFunctions } from "./functions.ts";
import { checkGemini } from "./gemini.ts";
import { checkGoogleOAuth } from "./google-oauth.ts";
import { checkOpenAiCompatible, checkPexels } from "./optional-providers.ts";
import { checkSecrets } from "./secrets.ts";
import { checkSizes } from "./sizes.ts";
import { checkStorage } from "./storage.ts";
import { checkTrends } from "./trends.ts";
import { checkYouTube } from "./youtube.ts";
import { checkTelegram } from "./telegram.ts";

const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
const FAMILY_ORDER = ["environment", "secrets", "database", "functions", "providers"];

interface DoctorReport {
  /** True when no check failed (warnings allowed). */
  ok: boolean;
  stack_env_file: { path: string; found: boolean };
  variables: { name: string; value: string; source: string }[];
  checks: CheckResult[];
  summary: { ok: number; warn: number; fail: number };
}

interface DoctorOptions {
  env: Record<string, string | undefined>;
  stackEnvFile: string;
  timeoutMs?: number;
}

/** A check that throws instead of reporting becomes a failed line, not a crash of the report. */
async function guarded(family: string, name: string, work: () => Promise<CheckResult | CheckResult[]>): Promise<CheckResult[]> {
  try {
    const result = await work();
    return Array.isArray(result) ? result : [result];
  } catch (error) {
    return [fail(family, name, `check failed: ${describeError(error)}`)];
  }
}

type Check = (config: DoctorConfig, timeoutMs: number) => CheckResult | CheckResult[] | Promise<CheckResult | CheckResult[]>;

/** Every check, by family and name (what a check that throws is reported as). */
const CHECKS: ReadonlyArray<[family: string, name: string, check: Check]> = [
  ["environment", "environment", checkEnvironment],
  ["secrets", "secrets", checkSecrets],
  ["database", "database", checkDatabase],
  ["functions", "pipeline", checkFunctions],
  ["database", "credential keys", checkCredentialKeys],
  ["database", "sizes", checkSizes],
  ["providers", "gemini", checkGemini],
  ["providers", "openai-compat", checkOpenAiCompatible],
  ["providers", "edge-tts", checkEdgeTts],
  ["providers", "google-oauth", checkGoogleOAuth],
  ["providers", "youtube", checkYouTube],
  ["providers", "trends", checkTrends],
  ["providers", "pexels", checkPexels],
  ["providers", "storage", checkStorage],
  ["providers", "telegram", checkTelegram],
];

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const config: DoctorConfig = resolveDoctorConfig(options.env, options.stackEnvFile);
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const groups = await Promise.all(CHECKS.map(([family, name, check]) => guarded(family, name, async () => check(config, timeoutMs))));
  const checks = groups
    .flat()
    .map((c) => ({ ...c, message: scrub(c.message, config.secrets), ...(c.fix ? { fix: scrub(c.fix, config.secrets) } : {}) }))
    .sort((a, b) => FAMILY_ORDER.indexOf(a.family) - FAMILY_ORDER.indexOf(b.family));
  const summary = {
    ok: checks.filter((c) => c.status === "ok").length,
    warn: checks.filter((c) => c.status === "warn").length,
    fail: checks.filter((c) => c.status === "fail").length,
  };
  return {
    ok: summary.fail === 0,
    stack_env_file: config.stackEnvFile,
    variables: config.values.map((v) => ({ name: v.name, value: scrub(displayValue(v), config.secrets), source: v.source })),
    checks,
    summary,
  };
}

const LABEL = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;

/** One line per check: `ok   providers/gemini: key accepted; ...`. */
function checkLine(check: CheckResult): string {
  return `${LABEL[check.status]} ${check.family}/${check.name}: ${check.message}`;
}

/** The report as text: where each variable came from, then the checks, then the counts. */
export function formatReport(report: DoctorReport): string {
  const lines: string[] = [];
  const file = report.stack_env_file;
  lines.push(`Configuration (the environment first, then ${file.path}${file.found ? "" : ", which does not exist"}):`);
  const nameWidth = Math.max(...report.variables.map((v) => v.name.length));
  const valueWidth = Math.min(60, Math.max(...report.variables.map((v) => v.value.length)));
  for (const v of report.variables) lines.push(`  ${v.name.padEnd(nameWidth)}  ${v.value.padEnd(valueWidth)}  ${v.source}`);
  lines.push("", "Checks:");
  for (const check of report.checks) {
    lines.push(checkLine(check));
    if (check.status !== "ok" && check.fix) lines.push(`     fix: ${check.fix}`);
  }
  const { ok, warn, fail } = report.summary;
  lines.push("", `${ok} ok, ${warn} warn, ${fail} failed: ${report.ok ? "ready" : "not ready"}`);
  return `${lines.join("\n")}\n`;
}
