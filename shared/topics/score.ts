/**
 * A candidate topic's score in [0, 1] and its components (docs/reference/sources.md):
 *
 *   score = source weight × (0.20 recency + 0.25 traffic + 0.40 relevance + 0.15 novelty)
 *
 * - recency: halves every 24 hours since publication.
 * - traffic: the source's popularity figure on a log scale against a per-source reference (what
 *   a strong item of that source reaches), averaged with its velocity where the source gives one;
 *   0.5 for sources without a figure (feeds).
 * - relevance: 1 when a subject keyword is in the title or a subject category tags the item, 0.6
 *   when a keyword is only in its context, 0 otherwise; 1 for a dimension without a subject.
 * - novelty: 1 minus the similarity to the closest of the dimension's past topics.
 *
 * An excluded term, or no relevance at all to a declared subject, rejects the topic outright.
 */
import type { Signal, SourceKind, Subject } from "../contracts/sources.ts";
import { closestTitle, foldText, stem } from "./near-duplicate.ts";

const SCORE_WEIGHTS = { recency: 0.2, traffic: 0.25, relevance: 0.4, novelty: 0.15 } as const;

/** Traffic that earns a full traffic component, per source. */
const TRAFFIC_REFERENCE: Record<SourceKind, number> = {
  google_trends: 100_000, // searches
  hacker_news: 500, // points
  wikipedia: 500_000, // views in a day
  reddit: 20_000, // upvotes
  feed: 1,
};

const HALF_LIFE_H = 24;
const CONTEXT_ONLY_RELEVANCE = 0.6;

export interface ScoreComponents {
  recency: number;
  traffic: number;
  relevance: number;
  novelty: number;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
const logShare = (value: number, reference: number) => Math.min(1, Math.log10(1 + value) / Math.log10(1 + reference));

export function recencyComponent(publishedAt: string, now: number): number {
  const ageH = Math.max(0, (now - Date.parse(publishedAt)) / 3_600_000);
  return round(Math.pow(0.5, ageH / HALF_LIFE_H));
}

export function trafficComponent(signal: Pick<Signal, "source" | "traffic" | "velocity">): number {
  if (signal.traffic === null) return 0.5;
  const reference = TRAFFIC_REFERENCE[signal.source];
  const traffic = logShare(signal.traffic, reference);
  if (signal.velocity === null) return round(traffic);
  return round((traffic + logShare(signal.velocity, reference / 24)) / 2);
}

/** Words of a text as the subject is matched against them. */
function wordSet(texts: readonly string[]): Set<string> {
  return new Set(texts.flatMap((t) => foldText(t).map(stem)));
}

/** A phrase is present when every one of its words is. */
function hasPhrase(words: Set<string>, phrase: string): boolean {
  const needed = foldText(phrase).map(stem);
  return needed.length > 0 && needed.every((w) => words.has(w));
}

interface SubjectMatch {
  relevance: number;
  /** The subject keywords and categories the topic matched. */
  matched: string[];
  /** The first excluded term the topic carries, if any. */
  excluded?: string;
}

export function matchSubject(subject: Subject, signal: Pick<Signal, "title" | "context" | "categories">): SubjectMatch {
  const title = wordSet([signal.title]);
  const context = wordSet(signal.context);
  const excluded = subject.excluded_terms.find((term) => hasPhrase(title, term) || hasPhrase(context, term));
  if (subject.keywords.length === 0 && subject.categories.length === 0) return { relevance: 1, matched: [], excluded };
  const categories = new Set(signal.categories.map((c) => foldText(c).join(" ")));
  const inTitle = subject.keywords.filter((k) => hasPhrase(title, k));
  const inCategories = subject.categories.filter((c) => categories.has(foldText(c).join(" ")));
  const inContext = subject.keywords.filter((k) => !inTitle.includes(k) && hasPhrase(context, k));
  const matched = [...inTitle, ...inCategories, ...inContext];
  const relevance = inTitle.length > 0 || inCategories.length > 0 ? 1 : inContext.length > 0 ? CONTEXT_ONLY_RELEVANCE : 0;
  return { relevance, matched, excluded };
}

export function noveltyComponent(title: string, pastTitles: readonly string[]): number {
  const closest = closestTitle(title, pastTitles);
  return closest ? round(1 - closest.similarity) : 1;
}

export function combineScore(components: ScoreComponents, sourceWeight: number): number {
  const sum = SCORE_WEIGHTS.recency * components.recency + SCORE_WEIGHTS.traffic * components.traffic +
    SCORE_WEIGHTS.relevance * components.relevance + SCORE_WEIGHTS.novelty * components.novelty;
  return round(sourceWeight * sum);
}
