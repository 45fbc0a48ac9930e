/** The dimension's `llm` field as an operator writes it: which shapes pass, and what a bad one says. */
import { describe, expect, test } from "bun:test";
import { describeIssues, DimensionConfig, DimensionPatch } from "../../shared/contracts/dimension.ts";

const BASE = {
  id: "routed",
  display_name: "Routed",
  language: "en" as const,
  tts_voice: "en-US-AriaNeural",
  trend_geo: "US",
  style: { palette: ["#000000", "#ffffff"], motion: "drift" as const },
};

const problems = (llm: unknown) => {
  const result = DimensionConfig.safeParse({ ...BASE, llm });
  if (result.success) throw new Error("accepted");
  return describeIssues(result.error.issues);
};

describe("llm routing in a dimension's configuration", () => {
  test("per task, providers in order, a model optional", () => {
    const llm = {
      script: [{ provider: "gemini" as const, model: "gemini-2.5-pro" }],
      critic: [{ provider: "openai-compat" as const, model: "llama3.1:8b" }, { provider: "gemini" as const }],
    };
    expect(DimensionConfig.parse({ ...BASE, llm }).llm).toEqual(llm);
    expect(DimensionConfig.parse(BASE).llm).toEqual({});
    expect(DimensionPatch.parse({ llm: { plan: [{ provider: "openai-compat" }] } })).toEqual({ llm: { plan: [{ provider: "openai-compat" }] } });
  });

  test("an unknown task, provider or key is named; an empty list refused", () => {
    expect(problems({ horoscope: [{ provider: "gemini" }] })).toEqual(["llm.horoscope: unknown field"]);
    expect(problems({ script: [{ provider: "claude" }] })[0]).toStartWith("llm.script.0.provider: ");
    expect(problems({ script: [{ provider: "gemini", temperature: 2 }] })).toEqual(["llm.script.0.temperature: unknown field"]);
    expect(problems({ critic: [] })).toEqual(["llm.critic: must name at least one provider"]);
    expect(problems({ plan: [{ provider: "gemini", model: "has spaces" }] })[0]).toContain("must be a model id");
  });
});
