/**
 * `TASK: script` — a short-video voice-over about a trend.
 * Headers: `LANGUAGE: <BCP-47 tag>` (English, Indonesian or Russian: `en`, `id-ID`, `ru-RU`, ...), `TOPIC: <title>`, `CONTEXT: <one line>` (optional; items may be
 * separated by ` \| `, the first is used), `WORDS: <min>-<max>` (optional, 60-180; default 95-150).
 * Answer: a ScriptDraft (shared/contracts/llm.ts) whose narration opens with the hook and has
 * min-max words in 5-8 sentences, in the requested language.
 */
import type { Variant } from "./prompt.ts";
import { type ScriptTemplates, TEMPLATES_BY_LANGUAGE } from "./script-templates.ts";
import { capitalize, countWords, normalizeSpace, splitSentences } from "./sentences.ts";

const DEFAULT_WORDS = { min: 95, max: 150 };
const MAX_SENTENCES = 8;

/** The `WORDS: <min>-<max>` header, or null when it is absent or not a usable range. */
function wordRange(header: string | undefined): { min: number; max: number } | null {
  const match = /^\s*(\d{1,3})\s*-\s*(\d{1,3})\s*$/.exec(header ?? "");
  if (!match) return null;
  const min = Number(match[1]);
  const max = Number(match[2]);
  return min >= 60 && max <= 180 && max - min >= 10 ? { min, max } : null;
}

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

/** The words a spoken line spends on naming its topic, at most. */
const HOOK_TOPIC_WORDS = 4;

/**
 * How the spoken lines name the topic: a headline cut to its head, as a writer would say it in an
 * opening line and after (the title and description keep it whole). A short label before a colon (`Show HN:`, `Ask HN:`) is dropped,
 * then the words before a dash, bar or bracket are kept, at most HOOK_TOPIC_WORDS of them.
 */
export function hookTopic(topic: string): string {
  const labelled = /^([^:]{1,20}):\s+(.+)$/u.exec(topic);
  const rest = labelled && labelled[1]!.split(/\s+/).length <= 2 ? labelled[2]! : topic;
  const head = rest.split(/\s+[-–—|]\s+|\s*[([]/u)[0]!.trim() || rest;
  return head.split(/\s+/).slice(0, HOOK_TOPIC_WORDS).join(" ").replace(/[\s,;:]+$/u, "");
}

function hashtagFor(topic: string): string | undefined {
  const words = topic.match(/[\p{L}\p{N}]+/gu) ?? [];
  const tag = words.map(capitalize).join("").slice(0, 30);
  return tag.length >= 2 ? `#${tag}` : undefined;
}

export function writeScript(headers: Record<string, string>, variant: Variant): unknown {
  const language = (headers.LANGUAGE ?? "en").trim();
  const templates = TEMPLATES_BY_LANGUAGE[language.split("-")[0].toLowerCase()];
  if (!templates) return { error: `unsupported language ${language}` };
  const topic = cleanTopic(headers.TOPIC ?? "");
  if (topic === "") return { error: "missing TOPIC" };
  const context = cleanContext(headers.CONTEXT, topic);
  if (headers.WORDS !== undefined && wordRange(headers.WORDS) === null) {
    return { error: `WORDS must be <min>-<max> within 60-180, at least 10 apart; got ${headers.WORDS}` };
  }
  const { min: MIN_WORDS, max: MAX_WORDS } = wordRange(headers.WORDS) ?? DEFAULT_WORDS;
  const t: ScriptTemplates = templates;
  // The title and description name the topic in full; spoken lines by its head (hookTopic), as a
  // writer names a long headline once and then by a few words.
  const fillWith = (name: string) => (template: string) =>
    normalizeSpace(
      template.replaceAll("{Topic}", capitalize(name)).replaceAll("{topic}", name)
        .replaceAll("{context_sentence}", context ? `${context}.` : "").replaceAll("{context}", context),
    );
  const fill = fillWith(topic);
  const say = fillWith(hookTopic(topic));

  const hook = say(variant.pick(t.hooks));
  const contextLine = context ? say(variant.pick(t.contextLines)) : variant.pick(t.noContext);
  const why = say(variant.pick(t.why));
  const closer = variant.pick(t.closers);
  const pool = variant.shuffle(t.body).map(say);
  const span = MAX_WORDS - MIN_WORDS;
  const target = variant.int(MIN_WORDS + Math.round(span * 0.2), MAX_WORDS - Math.round(span * 0.25));
  // Longer ranges need more sentences than a short video usually has.
  const maxSentences = Math.max(MAX_SENTENCES, Math.ceil(MAX_WORDS / 16));

  /**
   * Hook, the optional lines that fit, body sentences taken in pool order while they keep the
   * narration within MAX_WORDS, until it reaches the target, then the closer. A short range drops
   * the "why" line, then the context line too.
   */
  const compose = (withContext: boolean, withWhy: boolean) => {
    const opening = withContext ? [hook, contextLine] : [hook];
    const closing = withWhy ? [why, closer] : [closer];
    const body: string[] = [];
    const text = () => [...opening, ...body, ...closing].join(" ");
    for (const sentence of pool) {
      if (body.length > 0 && (countWords(text()) >= target || splitSentences(text()).length >= maxSentences)) break;
      if (countWords(text()) + countWords(sentence) <= MAX_WORDS) body.push(sentence);
    }
    return body.length > 0 ? text() : null;
  };
  const fits = (narration: string | null) => narration !== null && countWords(narration) >= MIN_WORDS && countWords(narration) <= MAX_WORDS;
  const narration = [compose(true, true), compose(true, false), compose(false, true), compose(false, false)].find(fits) ?? compose(true, true) ??
    `${hook} ${closer}`;
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
