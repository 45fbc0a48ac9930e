/**
 * The caption of an Instagram Reel or the description of a Facebook Reel, from the script: the
 * title, the description and the hashtags, within Instagram's limits (POST /{ig-user-id}/media:
 * at most 2,200 characters and 30 hashtags). Hashtags past the 30th are left out, and a text past
 * the length is cut without splitting a character. Pure.
 */

/** Instagram's caption limits. */
export const CAPTION_MAX_CHARS = 2200;
export const CAPTION_MAX_HASHTAGS = 30;

const HASHTAG = /(^|\s)#[^\s#]+/g;

function countHashtags(text: string): number {
  return (text.match(HASHTAG) ?? []).length;
}

export function metaCaption(script: { title: string; description: string; hashtags: string[] }): string {
  const title = script.title.trim();
  const description = script.description.trim();
  let room = Math.max(0, CAPTION_MAX_HASHTAGS - countHashtags(`${title}\n${description}`));
  const tags: string[] = [];
  for (const raw of script.hashtags) {
    const tag = raw.trim().replace(/^#*/, "#");
    if (tag === "#" || /\s/.test(tag) || room === 0) continue;
    tags.push(tag);
    room -= 1;
  }
  const text = [title, description, tags.join(" ")].filter(Boolean).join("\n\n");
  const chars = [...text];
  if (chars.length <= CAPTION_MAX_CHARS) return text;
  return chars.slice(0, CAPTION_MAX_CHARS).join("").trimEnd();
}
