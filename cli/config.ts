/**
 * Where mdame finds the API: FUNCTIONS_URL and SERVICE_ROLE_KEY from the environment (a real
 * Supabase project, or any stack), else the local stack's `.local/stack.env`.
 */
import { readFileSync } from "node:fs";
import { parseEnvFile } from "../stack/stack-env.ts";
import { CliError, EXIT } from "./errors.ts";

export interface ApiConfig {
  /** Base URL of the Edge Functions, without a trailing slash. */
  baseUrl: string;
  serviceRoleKey: string;
  /** Where the two values came from: "environment" or the stack.env path. */
  source: string;
}

function checkedUrl(value: string, from: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`FUNCTIONS_URL${from} is not a URL: ${JSON.stringify(value)}`, EXIT.usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError(`FUNCTIONS_URL${from} must be http(s): ${JSON.stringify(value)}`, EXIT.usage);
  return value.replace(/\/+$/, "");
}

/**
 * Both values from the environment when both are set; from `stackEnvFile` when neither is. One
 * without the other is refused, so a local key is never sent to a remote URL or the reverse.
 */
export function resolveApiConfig(
  env: Record<string, string | undefined>,
  stackEnvFile: string,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): ApiConfig {
  const url = env.FUNCTIONS_URL?.trim() || undefined;
  const key = env.SERVICE_ROLE_KEY?.trim() || undefined;
  if (url && key) return { baseUrl: checkedUrl(url, ""), serviceRoleKey: key, source: "environment" };
  if (url || key) {
    const [set, unset] = url ? ["FUNCTIONS_URL", "SERVICE_ROLE_KEY"] : ["SERVICE_ROLE_KEY", "FUNCTIONS_URL"];
    throw new CliError(`${set} is set but ${unset} is not: set both, or neither to use the local stack (${stackEnvFile})`, EXIT.usage);
  }
  let text: string;
  try {
    text = readFile(stackEnvFile);
  } catch {
    throw new CliError(
      `set FUNCTIONS_URL and SERVICE_ROLE_KEY to reach the API (no local stack found: ${stackEnvFile} does not exist; \`npm run stack\` writes it)`,
      EXIT.usage,
    );
  }
  const file = parseEnvFile(text);
  if (!file.FUNCTIONS_URL || !file.SERVICE_ROLE_KEY) {
    throw new CliError(`${stackEnvFile} lacks FUNCTIONS_URL or SERVICE_ROLE_KEY; set both in the environment instead`, EXIT.usage);
  }
  return { baseUrl: checkedUrl(file.FUNCTIONS_URL, ` in ${stackEnvFile}`), serviceRoleKey: file.SERVICE_ROLE_KEY, source: stackEnvFile };
}
