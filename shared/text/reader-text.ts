/**
 * The words a reader of an ingested item would see, and nothing else: what a source sends may be
 * HTML (a feed's description, a news snippet), and an instruction can hide in it where no reader
 * sees it but a model would: a comment, a script or style block, an element marked hidden
 * (`hidden`, `aria-hidden="true"`, an inline style with display:none, visibility:hidden, a zero font
 * size or opacity), an attribute. Parsed with htmlparser2 (entities decoded, malformed markup
 * tolerated), only the text of visible elements is kept, with whitespace collapsed. Text without
 * markup comes back as it was, whitespace collapsed.
 */
import { Parser } from "htmlparser2";

/** Elements whose content is never shown as text. */
const NEVER_SHOWN = new Set(["script", "style", "template", "noscript", "head", "title", "iframe", "object", "svg", "math", "textarea", "select"]);
/** Elements that close themselves: no end tag follows to pop them. */
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
/** Elements whose end separates words. */
const BLOCK = new Set([
  "p",
  "div",
  "br",
  "li",
  "ul",
  "ol",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "tr",
  "td",
  "th",
  "section",
  "article",
  "blockquote",
  "pre",
  "hr",
]);

const HIDING_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*0(?:\.0*)?(?:px|pt|em|rem|%)?\s*(?:!important)?\s*(?:;|$)|opacity\s*:\s*0(?:\.0*)?\s*(?:!important)?\s*(?:;|$)|(?:max-)?(?:height|width)\s*:\s*0(?:px)?\s*(?:!important)?\s*(?:;|$))/i;

/** Whether an element with these attributes is hidden from a reader. */
function hides(attributes: Record<string, string>): boolean {
  if ("hidden" in attributes) return true;
  if ((attributes["aria-hidden"] ?? "").trim().toLowerCase() === "true") return true;
  return HIDING_STYLE.test(attributes.style ?? "");
}

/** The visible text of `html`, whitespace collapsed to single spaces. */
export function readerText(html: string): string {
  if (!/[<&]/.test(html)) return html.replace(/\s+/g, " ").trim();
  const parts: string[] = [];
  // Open elements, each with whether it hides what it holds.
  const open: { name: string; hidden: boolean }[] = [];
  const hiddenDepth = () => open.some((e) => e.hidden);
  const parser = new Parser({
    onopentag(name, attributes) {
      const element = name.toLowerCase();
      if (VOID.has(element)) {
        if (element === "br" || element === "hr") parts.push(" ");
        return;
      }
      open.push({ name: element, hidden: NEVER_SHOWN.has(element) || hides(attributes) });
    },
    ontext(text) {
      if (!hiddenDepth()) parts.push(text);
    },
    onclosetag(name) {
      const element = name.toLowerCase();
      if (VOID.has(element)) return;
      // Malformed markup: close up to the matching element, if it is open at all.
      const at = open.map((e) => e.name).lastIndexOf(element);
      if (at !== -1) open.splice(at);
      if (BLOCK.has(element)) parts.push(" ");
    },
  }, { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true });
  parser.write(html);
  parser.end();
  return parts.join("").replace(/\s+/g, " ").trim();
}
