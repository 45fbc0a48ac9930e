/** Trends feed: the Google Trends RSS the ingest stage reads, fetched and parsed by the same code. */
import { fetchTrendingTopics } from "../../shared/providers/trends/google-trends-rss.ts";
import { type CheckResult, describeError, fail, isUnreachable, ok, warn, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "providers";
const NAME = "trends";
const GEO = "US";

export async function checkTrends(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const base = config.env.TRENDS_BASE_URL || "https://trends.google.com";
  try {
    const topics = await withTimeout(timeoutMs, (signal) => fetchTrendingTopics({ baseUrl: base, geo: GEO, signal }));
    if (topics.length === 0) return warn(FAMILY, NAME, `feed at ${base} answers, but lists no trending topic for ${GEO}`, "runs ingest nothing until it does");
    return ok(FAMILY, NAME, `feed at ${base} lists ${topics.length} trending topics for ${GEO}`);
  } catch (error) {
    const what = isUnreachable(error) ? `cannot reach ${base}` : `feed at ${base} failed`;
    return fail(FAMILY, NAME, `${what}: ${describeError(error)}`, `check TRENDS_BASE_URL: ${hintFor("TRENDS_BASE_URL")}`);
  }
}
