/**
 * A small XML reader for feeds: elements, attributes, text, CDATA, comments, processing
 * instructions, a DOCTYPE without an internal subset, the five predefined entities and numeric
 * character references, and namespace prefixes resolved to their URIs. No DTDs, no external
 * entities (nothing is ever fetched). Throws XmlError on malformed input.
 */

export interface XmlElement {
  /** Local name, without prefix. */
  name: string;
  /** Namespace URI the prefix resolves to ("" for none). */
  ns: string;
  attributes: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

export class XmlError extends Error {
  constructor(message: string, offset: number) {
    super(`${message} at offset ${offset}`);
    this.name = "XmlError";
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function decodeEntities(text: string, offset = 0): string {
  return text.replace(/&([^;&\s]{1,32});/g, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      if (!Number.isInteger(code) || code < 0 || code > 0x10ffff) throw new XmlError(`bad character reference ${whole}`, offset);
      return String.fromCodePoint(code);
    }
    const value = ENTITIES[ref];
    if (value === undefined) throw new XmlError(`unknown entity ${whole}`, offset);
    return value;
  });
}

const NAME = /[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?/y;
const ATTRIBUTE = /\s+([A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;

/** Parses a document and returns its root element. */
export function parseXml(text: string): XmlElement {
  let i = 0;
  const root: XmlElement = { name: "#document", ns: "", attributes: {}, children: [] };
  const stack: Array<{ element: XmlElement; qname: string; scope: Record<string, string> }> = [
    { element: root, qname: "", scope: { xml: "http://www.w3.org/XML/1998/namespace" } },
  ];
  const skipTo = (end: string, what: string) => {
    const at = text.indexOf(end, i);
    if (at < 0) throw new XmlError(`unterminated ${what}`, i);
    const inner = text.slice(i, at);
    i = at + end.length;
    return inner;
  };

  while (i < text.length) {
    const top = stack[stack.length - 1];
    if (text[i] !== "<") {
      const next = text.indexOf("<", i);
      const raw = text.slice(i, next < 0 ? text.length : next);
      if (stack.length > 1) top.element.children.push(decodeEntities(raw, i));
      else if (raw.trim() !== "") throw new XmlError("text outside the root element", i);
      i = next < 0 ? text.length : next;
    } else if (text.startsWith("<!--", i)) {
      i += 4;
      skipTo("-->", "comment");
    } else if (text.startsWith("<![CDATA[", i)) {
      i += 9;
      top.element.children.push(skipTo("]]>", "CDATA section"));
    } else if (text.startsWith("<?", i)) {
      i += 2;
      skipTo("?>", "processing instruction");
    } else if (text.startsWith("<!DOCTYPE", i)) {
      i += 9;
      const body = skipTo(">", "DOCTYPE");
      if (body.includes("[")) throw new XmlError("DOCTYPE internal subsets are not supported", i);
    } else if (text.startsWith("</", i)) {
      i += 2;
      NAME.lastIndex = i;
      const match = NAME.exec(text);
      if (!match) throw new XmlError("bad end tag", i);
      i = NAME.lastIndex;
      skipTo(">", "end tag");
      if (stack.length === 1 || match[0] !== top.qname) throw new XmlError(`end tag </${match[0]}> does not match <${top.qname}>`, i);
      stack.pop();
    } else {
      i += 1;
      NAME.lastIndex = i;
      const match = NAME.exec(text);
      if (!match) throw new XmlError("bad start tag", i);
      const qname = match[0];
      i = NAME.lastIndex;
      const raw: Record<string, string> = {};
      for (;;) {
        ATTRIBUTE.lastIndex = i;
        const attribute = ATTRIBUTE.exec(text);
        if (!attribute) break;
        raw[attribute[1]] = decodeEntities(attribute[2] ?? attribute[3], i);
        i = ATTRIBUTE.lastIndex;
      }
      while (/\s/.test(text[i] ?? "")) i++;
      const selfClosing = text.startsWith("/>", i);
      if (!selfClosing && text[i] !== ">") throw new XmlError(`malformed tag <${qname}>`, i);
      i += selfClosing ? 2 : 1;

      const scope = { ...top.scope };
      for (const [key, value] of Object.entries(raw)) {
        if (key === "xmlns") scope[""] = value;
        else if (key.startsWith("xmlns:")) scope[key.slice(6)] = value;
      }
      const colon = qname.indexOf(":");
      const prefix = colon < 0 ? "" : qname.slice(0, colon);
      if (prefix && scope[prefix] === undefined) throw new XmlError(`undeclared namespace prefix ${prefix}`, i);
      const element: XmlElement = { name: qname.slice(colon + 1), ns: scope[prefix] ?? "", attributes: raw, children: [] };
      if (stack.length === 1 && root.children.some((c) => typeof c !== "string")) throw new XmlError("more than one root element", i);
      top.element.children.push(element);
      if (!selfClosing) stack.push({ element, qname, scope });
    }
  }
  if (stack.length > 1) throw new XmlError(`unclosed <${stack[stack.length - 1].qname}>`, i);
  const documentElement = root.children.find((c): c is XmlElement => typeof c !== "string");
  if (!documentElement) throw new XmlError("no root element", 0);
  return documentElement;
}

/** Child elements with a local name (and namespace, when given). */
export function childElements(element: XmlElement, name: string, ns?: string): XmlElement[] {
  return element.children.filter((c): c is XmlElement => typeof c !== "string" && c.name === name && (ns === undefined || c.ns === ns));
}

/** The concatenated text of an element and its descendants, trimmed. */
export function textOf(element: XmlElement | undefined): string {
  if (!element) return "";
  const parts: string[] = [];
  const walk = (node: XmlNode) => typeof node === "string" ? parts.push(node) : node.children.forEach(walk);
  walk(element);
  return parts.join("").trim();
}
