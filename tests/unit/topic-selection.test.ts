/**
 * Topic scoring and selection (shared/topics): each score component, subject matching with
 * excluded terms, near-duplicates across sources and days, and the min_score threshold.
 */
import { describe, expect, test } from "bun:test";
import type { Signal, Subject } from "../../shared/contracts/sources.ts";
import { titleSimilarity, titleTokens } from "../../shared/topics/near-duplicate.ts";
import { combineScore, matchSubject, noveltyComponent, recencyComponent, trafficComponent } from "../../shared/topics/score.ts";
import { type Candidate, selectTopics } from "../../shared/topics/select.ts";

const NOW = Date.parse("2026-11-30T12:00:00Z");
const hoursAgo = (h: number) => new Date(NOW - h * 3_600_000).toISOString();
const NO_SUBJECT: Subject = { keywords: [], categories: [], excluded_terms: [] };
const SPACE: Subject = { keywords: ["telescope", "northern lights", "rocket"], categories: ["space"], excluded_terms: ["horoscope"] };

function candidate(title: string, overrides: Partial<Signal> = {}, weight = 1): Candidate {
  const signal: Signal = {
    source: "google_trends",
    title,
    url: null,
    published_at: hoursAgo(1),
    traffic: 10_000,
    velocity: null,
    categories: [],
    context: [],
    ...overrides,
  };
  return { signal, weight, title, context: signal.context, fingerprint: titleTokens(title).join(" ") };
}

describe("score components", () => {
  test("recency halves every day", () => {
    expect(recencyComponent(hoursAgo(0), NOW)).toBe(1);
    expect(recencyComponent(hoursAgo(24), NOW)).toBe(0.5);
    expect(recencyComponent(hoursAgo(48), NOW)).toBe(0.25);
  });

  test("traffic is log-scaled against the source's reference, with velocity where there is one", () => {
    expect(trafficComponent({ source: "google_trends", traffic: 100_000, velocity: null })).toBe(1);
    expect(trafficComponent({ source: "google_trends", traffic: 200, velocity: null })).toBeLessThan(0.5);
    // 500 points is a strong Hacker News story, 500 searches a weak trend.
    expect(trafficComponent({ source: "hacker_news", traffic: 500, velocity: null }))
      .toBeGreaterThan(trafficComponent({ source: "google_trends", traffic: 500, velocity: null }));
    expect(trafficComponent({ source: "hacker_news", traffic: 300, velocity: 100 }))
      .toBeGreaterThan(trafficComponent({ source: "hacker_news", traffic: 300, velocity: 5 }));
    expect(trafficComponent({ source: "feed", traffic: null, velocity: null })).toBe(0.5);
  });

  test("relevance: a keyword or category in the title is full, a keyword only in the context is partial", () => {
    expect(matchSubject(SPACE, { title: "James Webb Telescope", context: [], categories: [] })).toMatchObject({ relevance: 1, matched: ["telescope"] });
    expect(matchSubject(SPACE, { title: "Northern Lights tonight", context: [], categories: [] }).relevance).toBe(1);
    // A phrase needs all its words: "northern" alone is not "northern lights".
    expect(matchSubject(SPACE, { title: "Northern rail strike", context: [], categories: [] }).relevance).toBe(0);
    expect(matchSubject(SPACE, { title: "Launch day", context: ["The rocket lifted off"], categories: [] }).relevance).toBe(0.6);
    expect(matchSubject(SPACE, { title: "Launch day", context: [], categories: ["space"] }).relevance).toBe(1);
    expect(matchSubject(SPACE, { title: "Sourdough starter", context: [], categories: [] }).relevance).toBe(0);
    expect(matchSubject(NO_SUBJECT, { title: "Anything at all", context: [], categories: [] }).relevance).toBe(1);
    expect(matchSubject(SPACE, { title: "Telescope horoscope", context: [], categories: [] }).excluded).toBe("horoscope");
    // Accents and case do not hide an excluded term.
    expect(matchSubject({ ...NO_SUBJECT, excluded_terms: ["Pokémon"] }, { title: "POKEMON cards", context: [], categories: [] }).excluded).toBe("Pokémon");
  });

  test("novelty falls as a title nears one of the dimension's past topics", () => {
    expect(noveltyComponent("James Webb telescope", [])).toBe(1);
    expect(noveltyComponent("James Webb telescope", ["Sourdough starter"])).toBeGreaterThan(0.9);
    expect(noveltyComponent("James Webb telescope", ["james webb telescope!"])).toBe(0);
  });

  test("the score is the weighted sum, times the source's weight", () => {
    const all = { recency: 1, traffic: 1, relevance: 1, novelty: 1 };
    expect(combineScore(all, 1)).toBe(1);
    expect(combineScore(all, 0.5)).toBe(0.5);
    expect(combineScore({ recency: 0, traffic: 0, relevance: 1, novelty: 0 }, 1)).toBe(0.4);
  });
});

describe("near-duplicate titles", () => {
  test("folded, stop words dropped, plurals trimmed; both languages", () => {
    expect(titleTokens("The Northern Lights: where to look!")).toEqual(["northern", "light", "look"]);
    expect(titleSimilarity("Gerhana Bulan!", "gerhana bulan")).toBe(1);
    expect(titleSimilarity("northern lights tonight", "Northern lights tonight: where to look")).toBeGreaterThanOrEqual(0.5);
    expect(titleSimilarity("gerhana bulan", "gerhana matahari")).toBeLessThan(0.5);
    expect(titleSimilarity("apple stock price", "apple pie recipe")).toBeLessThan(0.5);
  });
});

describe("selectTopics", () => {
  test("off-subject and excluded topics are dropped with their score and why", () => {
    const { topics, dropped } = selectTopics({
      candidates: [candidate("James Webb telescope"), candidate("Sourdough starter"), candidate("Telescope horoscope for Leo")],
      subject: SPACE,
      minScore: 0,
      history: [],
      now: NOW,
    });
    expect(topics.map((t) => t.title)).toEqual(["James Webb telescope"]);
    expect(dropped.map((d) => [d.title, d.reason])).toEqual([["Sourdough starter", "off_subject"], ["Telescope horoscope for Leo", "excluded_term"]]);
    expect(dropped[1].detail).toEqual({ term: "horoscope" });
    expect(dropped[0].components.relevance).toBe(0);
    expect(dropped[0].score).toBeGreaterThan(0);
  });

  test("near-duplicates across sources keep the better-scored one; a past topic's near-duplicate is dropped", () => {
    const { topics, dropped } = selectTopics({
      candidates: [
        candidate("Northern Lights Forecast!", { traffic: 5_000 }),
        candidate("northern lights forecast", { traffic: 100_000 }),
        candidate("The James Webb Telescope's new deep field", { source: "hacker_news", traffic: 310 }, 0.8),
        candidate("Rocket engine test fire", { source: "feed", traffic: null }),
      ],
      subject: SPACE,
      minScore: 0,
      history: [{ title: "james webb telescope", fingerprint: "f-webb" }],
      now: NOW,
    });
    expect(topics.map((t) => t.title)).toEqual(["northern lights forecast", "Rocket engine test fire"]);
    const byTitle = new Map(dropped.map((d) => [d.title, d]));
    expect(byTitle.get("Northern Lights Forecast!")).toMatchObject({ reason: "near_duplicate", detail: { of: "northern lights forecast", past: false } });
    expect(byTitle.get("The James Webb Telescope's new deep field")).toMatchObject({
      reason: "near_duplicate",
      detail: { of: "james webb telescope", past: true },
    });
  });

  test("a topic under min_score is dropped and recorded with its components; the rest stay best first", () => {
    const { topics, dropped } = selectTopics({
      candidates: [candidate("Rocket launch", { traffic: 200_000 }), candidate("Telescope mirror", { traffic: 20, published_at: hoursAgo(70) })],
      subject: SPACE,
      minScore: 0.7,
      history: [],
      now: NOW,
    });
    expect(topics.map((t) => t.title)).toEqual(["Rocket launch"]);
    expect(topics[0].score).toBeGreaterThanOrEqual(0.7);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ title: "Telescope mirror", reason: "below_min_score", detail: { min_score: 0.7 } });
    expect(dropped[0].score).toBeLessThan(0.7);
    expect(Object.keys(dropped[0].components).sort()).toEqual(["novelty", "recency", "relevance", "traffic"]);
  });

  test("the same input selects the same topics", () => {
    const input = { candidates: [candidate("Rocket launch"), candidate("Telescope mirror")], subject: SPACE, minScore: 0, history: [], now: NOW };
    expect(selectTopics(input)).toEqual(selectTopics(input));
  });
});
