import { topicFingerprint, workUnitKey } from "../../../shared/hashing.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import type { PipelineDeps } from "../deps.ts";
import { firewallIngestedText } from "../safety/prompt-firewall.ts";
import { gateTopic } from "../safety/stage-gate.ts";
import type { StageMessage } from "../stage-runner.ts";
import { loadDimension } from "./unit.ts";

const HOUR_MS = 3_600_000;

/** Score in [0, 1]: search traffic on a log scale, discounted by age (half-life one day). */
export function scoreTrend(approxTraffic: number, publishedAt: string, now = Date.now()): number {
  const traffic = Math.min(1, Math.log10(Math.max(1, approxTraffic)) / 7);
  const ageH = Math.max(0, (now - Date.parse(publishedAt)) / HOUR_MS);
  return Math.round(traffic * Math.pow(0.5, ageH / 24) * 1e4) / 1e4;
}

/**
 * Trend signals -> candidate topics for one dimension: firewall, safety on the topic, fingerprint
 * de-duplication, scoring. The volume gate and the cross-day de-duplication happen in record_topics.
 */
export async function runIngest(deps: PipelineDeps, { msgId, task }: StageMessage, log: Logger) {
  if (task.stage !== "ingest") throw new Error("not an ingest task");
  const dimension = await loadDimension(deps.sql, task.dimension_id);
  const signals = await deps.trends(dimension.trend_geo);

  const accepted = new Map<string, Record<string, unknown>>();
  const rejected: Record<string, unknown>[] = [];
  for (const signal of signals) {
    const title = firewallIngestedText(signal.title, 120);
    const news = signal.news.map((n) => firewallIngestedText(n.title)).filter((n) => !n.blocked).map((n) => n.text);
    if (title.blocked) {
      rejected.push({ title: title.text || signal.title.slice(0, 120), reasons: title.reasons, classifier: "prompt-firewall/2", category: "other" });
      continue;
    }
    const fingerprint = await topicFingerprint(title.text);
    if (accepted.has(fingerprint)) continue;
    // Rules, then the classifier model; an unavailable model throws and the ingest task retries.
    const verdict = await gateTopic(deps, dimension, [title.text, ...news].join(" \n "));
    if (!verdict.allowed) {
      rejected.push({ title: title.text, ...verdict });
      continue;
    }
    accepted.set(fingerprint, {
      unit_key: await workUnitKey(dimension.id, fingerprint, "video"),
      fingerprint,
      title: title.text,
      context: news.slice(0, 3),
      approx_traffic: signal.approx_traffic,
      published_at: signal.published_at,
      score: scoreTrend(signal.approx_traffic, signal.published_at),
      safety: verdict,
    });
  }
  const topics = [...accepted.values()].sort((a, b) => (b.score as number) - (a.score as number));
  log.info({ signals: signals.length, candidates: topics.length, rejected: rejected.length }, "trends ingested");
  await deps.sql`select mdame.record_topics(${msgId}, ${task.run_id}, ${dimension.id}, ${task.step_token},
    ${deps.sql.json(topics as never)}, ${deps.sql.json(rejected as never)})`;
}
