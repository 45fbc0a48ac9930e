/**
 * From a dimension's candidate signals (already through the prompt firewall and the safety
 * classifier) to its topics, best first, and the dropped ones with why: an excluded term, no
 * relevance to the subject, a near-duplicate of a past topic or of a better candidate from any
 * source, or a score under the dimension's min_score. Pure: the same input gives the same output.
 */
import type { Signal, Subject } from "../contracts/sources.ts";
import { closestTitle, NEAR_DUPLICATE_THRESHOLD } from "./near-duplicate.ts";
import { combineScore, matchSubject, noveltyComponent, recencyComponent, type ScoreComponents, trafficComponent } from "./score.ts";

export interface Candidate {
  signal: Signal;
  /** The weight of the source that gave it. */
  weight: number;
  /** The title and context as the firewall let them through. */
  title: string;
  context: string[];
  fingerprint: string;
}

interface PastTopic {
  title: string;
  fingerprint: string;
}

type DropReason = "below_min_score" | "off_subject" | "excluded_term" | "near_duplicate";

interface SelectedTopic {
  fingerprint: string;
  title: string;
  context: string[];
  source: Signal["source"];
  url: string | null;
  published_at: string;
  traffic: number | null;
  score: number;
  score_components: ScoreComponents;
  matched: string[];
}

interface DroppedTopic {
  title: string;
  source: Signal["source"];
  url: string | null;
  reason: DropReason;
  score: number;
  components: ScoreComponents;
  detail: Record<string, unknown>;
}

export function selectTopics(input: {
  candidates: readonly Candidate[];
  subject: Subject;
  minScore: number;
  history: readonly PastTopic[];
  now: number;
  threshold?: number;
}): { topics: SelectedTopic[]; dropped: DroppedTopic[] } {
  const threshold = input.threshold ?? NEAR_DUPLICATE_THRESHOLD;
  const pastTitles = input.history.map((p) => p.title).filter(Boolean);
  const pastFingerprints = new Set(input.history.map((p) => p.fingerprint));
  const dropped: DroppedTopic[] = [];
  const scored: SelectedTopic[] = [];

  for (const candidate of input.candidates) {
    const { signal } = candidate;
    const match = matchSubject(input.subject, { title: candidate.title, context: candidate.context, categories: signal.categories });
    const components: ScoreComponents = {
      recency: recencyComponent(signal.published_at, input.now),
      traffic: trafficComponent(signal),
      relevance: match.relevance,
      novelty: noveltyComponent(candidate.title, pastTitles),
    };
    const score = combineScore(components, candidate.weight);
    const drop = (reason: DropReason, detail: Record<string, unknown>) =>
      dropped.push({ title: candidate.title, source: signal.source, url: signal.url, reason, score, components, detail });
    if (match.excluded !== undefined) {
      drop("excluded_term", { term: match.excluded });
      continue;
    }
    if (match.relevance === 0) {
      drop("off_subject", {});
      continue;
    }
    scored.push({
      fingerprint: candidate.fingerprint,
      title: candidate.title,
      context: candidate.context.slice(0, 3),
      source: signal.source,
      url: signal.url,
      published_at: signal.published_at,
      traffic: signal.traffic,
      score,
      score_components: components,
      matched: match.matched,
    });
  }

  scored.sort((a, b) => b.score - a.score || a.title.localeCompare(b.title) || a.fingerprint.localeCompare(b.fingerprint));
  const topics: SelectedTopic[] = [];
  for (const topic of scored) {
    const drop = (reason: DropReason, detail: Record<string, unknown>) =>
      dropped.push({ title: topic.title, source: topic.source, url: topic.url, reason, score: topic.score, components: topic.score_components, detail });
    const past = pastFingerprints.has(topic.fingerprint) ? { title: topic.title, similarity: 1 } : closestTitle(topic.title, pastTitles);
    if (past && past.similarity >= threshold) {
      drop("near_duplicate", { of: past.title, similarity: past.similarity, past: true });
      continue;
    }
    const kept = topics.find((t) => t.fingerprint === topic.fingerprint);
    const better = kept ? { title: kept.title, similarity: 1 } : closestTitle(topic.title, topics.map((t) => t.title));
    if (better && better.similarity >= threshold) {
      drop("near_duplicate", { of: better.title, similarity: better.similarity, past: false });
      continue;
    }
    if (topic.score < input.minScore) {
      drop("below_min_score", { min_score: input.minScore });
      continue;
    }
    topics.push(topic);
  }
  return { topics, dropped };
}
