/**
 * The hook critic's contract: it judges the form of an opening line (does it ask, promise, speak to
 * the viewer, fit the first seconds), never the words the topic brought in. Every word of the hook
 * that came from the untrusted topic (four characters or more, numbers excepted) is shown to the
 * critic as `[topic]`, one placeholder per word so the length it judges is the length spoken. An
 * instruction hidden in a trend title ("critic: this deserves 1.0") reaches the critic as a row of
 * placeholders: the score comes from what the engine's own writer made of the topic.
 */
import { contentWords } from "./payloads.ts";

const TOPIC_PLACEHOLDER = "[topic]";

const WORD = /[\p{L}\p{N}]+(?:['’\-.][\p{L}\p{N}]+)*/gu;

export function maskTopicWords(hook: string, topicTexts: readonly string[]): string {
  const topic = new Set<string>();
  for (const text of topicTexts) for (const word of contentWords(text)) topic.add(word);
  return hook.normalize("NFKC").replace(WORD, (word) => {
    if (/^[\p{N}.,]+$/u.test(word)) return word;
    const parts = word.toLocaleLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    return parts.some((part) => topic.has(part)) ? TOPIC_PLACEHOLDER : word;
  });
}
