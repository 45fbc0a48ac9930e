import { z } from "zod";
import { MinScore, Sources, Subject } from "../../../shared/contracts/sources.ts";
import { getTopicHistory } from "../../../shared/db/rpc/work-units.ts";
import { rankByCategory, unitLength } from "../../../shared/adapt/apply.ts";
import { topicFingerprint, workUnitKey } from "../../../shared/hashing.ts";
import { fetchSources } from "../../../shared/providers/sources/index.ts";
import { type Candidate, selectTopics } from "../../../shared/topics/select.ts";
import { defencesOf } from "../safety/defences.ts";
import { headline } from "../safety/headline.ts";
import { stripPayloads } from "../safety/payloads.ts";
import { firewallIngestedText } from "../safety/prompt-firewall.ts";
import { gateTopic, screenTopic } from "../safety/stage-gate.ts";
import type { Stage } from "../stage-task.ts";
import { DimensionRow, loadDimensionConfig } from "./unit.ts";

/** How many of the dimension's past topics novelty and near-duplicates are judged against. */
const HISTORY_TOPICS = 500;

/**
 * The dimension's subject, sources and threshold, checked as they leave the database: as the run
 * started them (so the source weights in force, with the adaptive engine's moves), else as they stand.
 */
const TopicSettings = z.object({ subject: Subject, sources: Sources, min_score: MinScore });

/**
 * Trend signals from every source of one dimension -> its topics: the firewall and the safety
 * rules on each signal, then subject, score, near-duplicates and threshold
 * (shared/topics/select.ts), then the safety classifier on the best topics. A source
 * that fails is logged and skipped; all of them failing fails the task, retriably. The volume gate
 * and the cross-day fingerprint de-duplication happen in record_topics, which also records the
 * rejected and dropped topics.
 */
export const runIngest: Stage<"ingest"> = async (task, { deps, logger: log }) => {
  const config = await loadDimensionConfig(deps.sql, task.dimension_id, task.run_id);
  const dimension = DimensionRow.parse(config);
  const wanted = TopicSettings.parse(config);
  const now = Date.now();
  const { signals, failures } = await fetchSources(deps.sources, wanted.sources, { geo: dimension.trend_geo, now });
  for (const failure of failures) {
    log.warn({ source: failure.source, reason: failure.message, retriable: failure.retriable, status: "skipped" }, "trend source failed: skipped");
  }

  const layers = defencesOf(deps);
  // Links, handles, wallets and phone numbers are what an attacker wants published: trend text loses them.
  const unpaid = (text: string, words: number) => {
    const stripped = layers.payload_strip ? stripPayloads(text) : text;
    return layers.headline_only ? headline(stripped, words) : stripped;
  };
  const rejected: Record<string, unknown>[] = [];
  const candidates: Candidate[] = [];
  for (const { signal, weight } of signals) {
    const checked = firewallIngestedText(signal.title, 120, { detect: layers.firewall });
    const title = { ...checked, text: unpaid(checked.text, 16) };
    if (!title.blocked && title.text === "") title.reasons.push("empty without its links, handles and numbers");
    title.blocked = title.reasons.length > 0;
    const context = signal.context.map((c) => firewallIngestedText(c, 200, { detect: layers.firewall })).filter((c) => !c.blocked)
      .map((c) => unpaid(c.text, 30)).filter((c) => c !== "");
    if (title.blocked) {
      rejected.push({
        title: title.text || checked.text || signal.title.slice(0, 120),
        reasons: title.reasons,
        classifier: "prompt-firewall/2",
        category: "other",
      });
      continue;
    }
    // The rules pre-filter (no model call) judges every signal: its refusals are audited whatever
    // the subject or score would have made of them.
    const ruled = screenTopic(dimension, [title.text, ...context].join(" \n "));
    if (ruled) {
      rejected.push({ title: title.text, ...ruled });
      continue;
    }
    candidates.push({ signal, weight, title: title.text, context, fingerprint: await topicFingerprint(title.text) });
  }

  const history = await getTopicHistory(deps.sql, dimension.id, HISTORY_TOPICS);
  const selected = selectTopics({
    candidates,
    subject: wanted.subject,
    minScore: wanted.min_score,
    history,
    now,
  });
  // Favoured and avoided categories (the adaptive engine's) move topics up or down the ranking.
  const categoriesOf = new Map(candidates.map((c) => [c.fingerprint, c.signal.categories.map((x) => x.toLowerCase())]));
  const topics = rankByCategory(selected.topics.map((t) => ({ ...t, categories: categoriesOf.get(t.fingerprint) ?? [] })), dimension.adapt);
  const dropped = selected.dropped;
  // The classifier model judges the selected topics in score order only until the day's limit is
  // filled: the rest could not become units today. Every verdict, allowed or not, is recorded. An
  // unavailable model throws: the task retries.
  const records: Record<string, unknown>[] = [];
  for (const topic of topics) {
    if (records.length >= dimension.daily_limit) break;
    const verdict = await gateTopic({ ...deps, logger: log }, dimension, [topic.title, ...topic.context].join(" \n "));
    if (!verdict.allowed) {
      rejected.push({ title: topic.title, ...verdict });
      continue;
    }
    // The parameters the unit is made with beyond the run's: its length arm when the run explores lengths.
    const length = unitLength(dimension.adapt, records.length);
    records.push({ unit_key: await workUnitKey(dimension.id, topic.fingerprint, "video"), ...topic, ...(length ? { adapt: length } : {}), safety: verdict });
  }
  log.info({
    signals: signals.length,
    sources_failed: failures.length,
    candidates: records.length,
    rejected: rejected.length,
    dropped: dropped.length,
    status: "succeeded",
  }, "trends ingested");
  return { kind: "topics.recorded", topics: records, rejected: [...rejected, ...dropped] };
};
