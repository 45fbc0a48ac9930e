/**
 * Providers a deployment may leave out: an OpenAI-compatible chat API (tasks a dimension routes to
 * it) and Pexels (a visual backend of the gpu-worker). Unset, each says so and what it means; set,
 * each must answer and accept its key, through the calls the engine itself makes.
 */
import { type CheckResult, describeError, fail, ok, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "providers";

/** GET `url` with `headers`: the status, or the reason it could not be asked. */
async function ask(url: string, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number } | { error: string }> {
  try {
    const response = await withTimeout(timeoutMs, (signal) => fetch(url, { headers, signal }));
    await response.body?.cancel().catch(() => {});
    return { status: response.status };
  } catch (error) {
    return { error: describeError(error) };
  }
}

/** `GET {base}/models` with the bearer key, as the openai client lists models. */
export async function checkOpenAiCompatible(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const name = "openai-compat";
  const base = config.env.OPENAI_COMPAT_BASE_URL;
  if (!base) return ok(FAMILY, name, "not configured (OPENAI_COMPAT_BASE_URL unset): every LLM task runs on Gemini");
  const key = config.env.OPENAI_COMPAT_API_KEY;
  const answer = await ask(`${base.replace(/\/+$/, "")}/models`, key ? { authorization: `Bearer ${key}` } : {}, timeoutMs);
  if ("error" in answer) {
    return fail(FAMILY, name, `cannot reach ${base}: ${answer.error}`, `check OPENAI_COMPAT_BASE_URL: ${hintFor("OPENAI_COMPAT_BASE_URL")}`);
  }
  if (answer.status === 401 || answer.status === 403) {
    return fail(FAMILY, name, `${base} refused OPENAI_COMPAT_API_KEY (HTTP ${answer.status})`, hintFor("OPENAI_COMPAT_API_KEY"));
  }
  if (answer.status !== 200) {
    return fail(FAMILY, name, `${base}/models answered HTTP ${answer.status}`, `check OPENAI_COMPAT_BASE_URL: ${hintFor("OPENAI_COMPAT_BASE_URL")}`);
  }
  return ok(FAMILY, name, `key accepted; models listed at ${base}`);
}

/** One search of one result, as the Pexels backend searches. */
export async function checkPexels(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const name = "pexels";
  const key = config.env.PEXELS_API_KEY;
  if (!key) return ok(FAMILY, name, "not configured (PEXELS_API_KEY unset): the gpu-worker skips the Pexels backend");
  const base = config.env.PEXELS_BASE_URL || "https://api.pexels.com";
  const answer = await ask(`${base.replace(/\/+$/, "")}/videos/search?query=nature&orientation=portrait&per_page=1`, { authorization: key }, timeoutMs);
  if ("error" in answer) return fail(FAMILY, name, `cannot reach ${base}: ${answer.error}`, `check PEXELS_BASE_URL: ${hintFor("PEXELS_BASE_URL")}`);
  if (answer.status === 401 || answer.status === 403) {
    return fail(FAMILY, name, `${base} refused PEXELS_API_KEY (HTTP ${answer.status})`, hintFor("PEXELS_API_KEY"));
  }
  if (answer.status === 429) {
    return fail(FAMILY, name, `${base} answered 429: the key's quota is spent for now`, "wait for the quota to reset, or ask Pexels for a higher limit");
  }
  if (answer.status !== 200) {
    return fail(FAMILY, name, `${base} answered HTTP ${answer.status} to a search`, `check PEXELS_BASE_URL: ${hintFor("PEXELS_BASE_URL")}`);
  }
  return ok(FAMILY, name, `key accepted; search answered at ${base}`);
}
