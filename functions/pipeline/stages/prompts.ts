import type { Language } from "../../../shared/contracts/llm.ts";
import { languageDisplayName } from "../../../shared/text/language.ts";
import { WORDS_PER_SECOND } from "./unit.ts";

/**
 * Prompts are plain text: a `TASK:` line, `KEY: value` header lines the model can rely on, then
 * instructions. Values come from the database or from firewalled trend text (one line each).
 * `LANGUAGE:` carries the dimension's BCP-47 tag (the locale); the instructions name the language.
 */

function headerValue(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

export function scriptPrompt(input: {
  language: Language;
  topic: string;
  context: string[];
  candidate: number;
  round: number;
  words: { min: number; max: number };
}): string {
  const { min, max } = input.words;
  const seconds = (words: number) => Math.round(words / WORDS_PER_SECOND);
  return [
    "TASK: script",
    `LANGUAGE: ${input.language}`,
    `TOPIC: ${headerValue(input.topic)}`,
    `CONTEXT: ${headerValue(input.context.join(" | ") || input.topic)}`,
    `CANDIDATE: ${input.candidate}`,
    `ROUND: ${input.round}`,
    `WORDS: ${min}-${max}`,
    "",
    `Write the voice-over of a vertical short video (${seconds(min)} to ${seconds(max)} seconds spoken) in ${languageDisplayName(input.language)} about the topic.`,
    `Write for the ${input.language} locale: its script, spelling, punctuation and number formats; count words as its speakers do.`,
    "Open with a hook sentence that makes a viewer stop scrolling, then explain the topic in plain words, then close with one memorable line.",
    "Be factual; make no medical, financial or legal promises; no personal data.",
    `Answer with JSON only: {"title": string (max 90 chars), "hook": string, "narration": string (hook first, ${min}-${max} words),`,
    "\"description\": string, \"hashtags\": [string starting with #, 1-5 items]}.",
  ].join("\n");
}

export function hookAuditPrompt(input: { language: Language; hook: string }): string {
  return [
    "TASK: hook_audit",
    `LANGUAGE: ${input.language}`,
    `HOOK: ${headerValue(input.hook)}`,
    "",
    "You are a harsh critic of short-video openings. Score from 0 to 1 how likely this first sentence stops a viewer from scrolling.",
    "Penalise vague, slow or clickbait openings. Answer with JSON only: {\"score\": number, \"reasons\": [string]}.",
  ].join("\n");
}

export function scenePlanPrompt(input: { language: Language; style: string; narration: string }): string {
  return [
    "TASK: scene_plan",
    `LANGUAGE: ${input.language}`,
    `STYLE: ${headerValue(input.style)}`,
    "NARRATION:",
    headerValue(input.narration),
    "",
    "Split the narration, in order and without changing a word, into 5 to 8 scenes. For each scene write a visual prompt for a",
    "concrete, filmable image of what is said (subject, setting, shot, light), and 1 to 4 short keywords a stock-video search",
    "would find it with. Answer with JSON only:",
    "{\"scenes\": [{\"prompt\": string, \"narration\": string, \"keywords\": [string]}]}.",
  ].join("\n");
}
