/**
 * `TASK: script` — a short-video voice-over about a trend.
 * Headers: `LANGUAGE: en|id`, `TOPIC: <title>`, `CONTEXT: <one line>` (optional; items may be
 * separated by ` \| `, the first is used).
 * Answer: a ScriptDraft (shared/contracts/llm.ts) whose narration opens with the hook and has
 * 95-150 words in 5-8 sentences, in the requested language.
 */
import type { Variant } from "./prompt.ts";
import { ENGLISH, INDONESIAN, type ScriptTemplates } from "./script-templates.ts";
import { capitalize, countWords, normalizeSpace, splitSentences } from "./sentences.ts";

const MIN_WORDS = 95;
const MAX_WORDS = 150;
const MAX_SENTENCES = 8;

/** Keeps a topic usable inside a sentence: one line, no trailing punctuation, at most ~60 chars. */
function cleanTopic(raw: string): string {
  let topic = normalizeSpace(raw).replace(/[\s.!?…,;:]+$/u, "");
  if (topic.length > 60) topic = topic.slice(0, 60).replace(/\s+\S*$/u, "");
  return topic;
}

/**
 * The first sentence of the context's first item (items are separated by ` | `), without its
 * closing punctuation, at most ~160 chars; empty when it only repeats the topic.
 */
function cleanContext(raw: string | undefined, topic: string): string {
  if (!raw) return "";
  const first = raw.split(/\s+\|\s+/)[0];
  let context = (splitSentences(first)[0] ?? "").replace(/[\s.!?…,;:]+$/u, "");
  if (context.toLowerCase() === topic.toLowerCase()) return "";
  if (context.length > 160) context = context.slice(0, 160).replace(/\s+\S*$/u, "");
  return context;
}

function hashtagFor(topic: string): string | undefined {
  const words = topic.match(/[\p{L}\p{N}]+/gu) ?? [];
  const tag = words.map(capitalize).join("").slice(0, 30);
  return tag.length >= 2 ? `#${tag}` : undefined;
}

export function writeScript(headers: Record<string, string>, variant: Variant): unknown {
  const language = (headers.LANGUAGE ?? "en").toLowerCase();
  if (language !== "en" && language !== "id") return { error: `unsupported language ${language}` };
  const topic = cleanTopic(headers.TOPIC ?? "");
  if (topic === "") return { error: "missing TOPIC" };
  const context = cleanContext(headers.CONTEXT, topic);
  const t: ScriptTemplates = language === "id" ? INDONESIAN : ENGLISH;
  const fill = (template: string) =>
    normalizeSpace(template.replaceAll("{Topic}", capitalize(topic)).replaceAll("{topic}", topic)
      .replaceAll("{context_sentence}", context ? `${context}.` : "").replaceAll("{context}", context));

  const hook = fill(variant.pick(t.hooks));
  const opening = [hook, context ? fill(variant.pick(t.contextLines)) : variant.pick(t.noContext)];
  const closing = [fill(variant.pick(t.why)), variant.pick(t.closers)];
  const pool = variant.shuffle(t.body).map(fill);
  const target = variant.int(105, 135);

  const body: string[] = [];
  const words = () => countWords([...opening, ...body, ...closing].join(" "));
  const sentenceCount = () => splitSentences([...opening, ...body, ...closing].join(" ")).length;
  while (pool.length > 0 && (body.length === 0 || (words() < target && sentenceCount() < MAX_SENTENCES))) {
    body.push(pool.shift()!);
  }
  while (words() > MAX_WORDS && body.length > 1) body.pop();
  if (words() > MAX_WORDS) closing.shift();
  while (words() < MIN_WORDS && pool.length > 0 && sentenceCount() < MAX_SENTENCES) body.push(pool.shift()!);

  const narration = [...opening, ...body, ...closing].join(" ");
  let title = fill(variant.pick(t.titles));
  if (title.length > 90) title = title.slice(0, 90).replace(/\s+\S*$/u, "");

  const tags: string[] = [];
  const topicTag = hashtagFor(topic);
  if (topicTag) tags.push(topicTag);
  const wanted = variant.int(2, 4);
  for (const tag of variant.shuffle(t.hashtags)) {
    if (tags.length >= wanted) break;
    if (!tags.some((existing) => existing.toLowerCase() === tag.toLowerCase())) tags.push(tag);
  }
  // Prose only: the publish stage appends the hashtags itself.
  const description = fill(variant.pick(t.descriptions));

  return { title, hook, narration, description, hashtags: tags };
}
