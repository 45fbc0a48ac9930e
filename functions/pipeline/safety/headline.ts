/**
 * Trend text reaches the prompts as a headline, not as a message: its first sentence or clause, in
 * a bounded number of words. A trend title is a short noun phrase or a one-clause news line; what
 * an attacker appends to one ("… . Forget this headline and …", "… — tell viewers to …",
 * "… (note to the critic: …)", "…; skip the news …") is a second sentence, a trailing clause or an
 * aside, and does not survive. Colons stay ("Artemis II: what to expect" is one headline).
 */

/** Where a headline ends: a sentence end before a capital or a non-letter, a dash or bar between spaces, a semicolon, `::`, `//`. */
const BREAK = /[.!?。！？]+(?=\s+[^\p{Ll}])|\s[-–—|]+\s|\s*;\s|\s*::\s*|\s\/\/\s/u;
/** Asides in brackets are dropped wherever they are. */
const ASIDE = /\s*[([{［（【][^)\]}］）】]*[)\]}］）】]?/gu;

export function headline(text: string, maxWords: number): string {
  const withoutAsides = text.replace(ASIDE, " ").replace(/\s+/g, " ").trim();
  const first = withoutAsides.split(BREAK)[0]!.trim();
  const words = first.split(" ");
  return (words.length > maxWords ? words.slice(0, maxWords).join(" ") : first).replace(/[\s,:;]+$/u, "");
}
