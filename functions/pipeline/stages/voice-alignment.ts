import type { WordTiming } from "../../../shared/contracts/media.ts";
import { splitWords } from "./unit.ts";

function normalise(word: string): string {
  return word.normalize("NFKD").toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * Index, in the synthesised words, of each scene's first word. The voice may split or join tokens
 * differently from whitespace (punctuation, numbers), so the spoken words are matched in order
 * against the narration's characters instead of counted.
 */
export function alignSceneStarts(sceneNarrations: readonly string[], spoken: readonly WordTiming[]): number[] {
  // Character offset of each scene's start in the normalised narration.
  const sceneStarts: number[] = [];
  let text = "";
  for (const narration of sceneNarrations) {
    sceneStarts.push(text.length);
    text += splitWords(narration).map(normalise).join("");
  }
  // Character offset where each spoken word starts in the same normalised text.
  const wordStarts: number[] = [];
  let cursor = 0;
  for (const word of spoken) {
    const w = normalise(word.text);
    const at = w ? text.indexOf(w, cursor) : -1;
    wordStarts.push(at >= 0 ? at : cursor);
    if (at >= 0) cursor = at + w.length;
  }
  const last = spoken.length - 1;
  const starts: number[] = [];
  for (const [i, start] of sceneStarts.entries()) {
    if (i === 0) {
      starts.push(0);
      continue;
    }
    const found = wordStarts.findIndex((s) => s >= start);
    // Scenes stay in order and, where the words allow, each gets at least one word.
    starts.push(Math.min(last, Math.max(found < 0 ? last : found, starts[i - 1] + 1)));
  }
  return starts;
}
