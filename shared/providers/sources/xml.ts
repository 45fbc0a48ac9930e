/**
 * Feed XML through fast-xml-parser: the document is validated first (the parser alone accepts
 * mismatched tags), then read into plain objects. Attributes are `@_name`, text beside attributes
 * is `#text`, CDATA is merged into the text, HTML entities are decoded; nothing is ever fetched
 * (no external entities). Namespaced names keep their prefix; `prefixOf` finds the prefix a
 * document binds to a namespace URI, so a reader never depends on the prefix a feed chose.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";

export type XmlObject = Record<string, unknown>;

export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "XmlError";
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** The document's one root element, by name. Throws XmlError when the text is not well-formed XML. */
export function parseXmlDocument(text: string): { name: string; element: XmlObject } {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlError(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  const document = parser.parse(text) as XmlObject;
  const roots = Object.keys(document).filter((key) => !key.startsWith("#") && !key.startsWith("?"));
  if (roots.length !== 1) throw new XmlError(roots.length === 0 ? "no root element" : "more than one root element");
  const element = document[roots[0]];
  return { name: roots[0], element: typeof element === "object" && element !== null ? element as XmlObject : { "#text": String(element ?? "") } };
}

/** A child that may appear once or many times, as a list. */
export function children(element: unknown, name: string): unknown[] {
  if (typeof element !== "object" || element === null) return [];
  const value = (element as XmlObject)[name];
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** The text of an element (or of an attribute value), whitespace collapsed; "" when absent. */
export function textOf(node: unknown): string {
  if (node === undefined || node === null) return "";
  if (typeof node === "string" || typeof node === "number" || typeof node === "boolean") return String(node).replace(/\s+/g, " ").trim();
  if (Array.isArray(node)) return textOf(node[0]);
  if (typeof node === "object") return textOf((node as XmlObject)["#text"]);
  return "";
}

/** The text of the first child called `name`. */
export function childText(element: unknown, name: string): string {
  return textOf(children(element, name)[0]);
}

/** An attribute of an element. */
export function attribute(node: unknown, name: string): string {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return "";
  return textOf((node as XmlObject)[`@_${name}`]);
}

/** `"ht:"` for the prefix the root binds to `uri`, `""` for the default namespace, undefined when unbound. */
export function prefixOf(root: XmlObject, uri: string): string | undefined {
  for (const [key, value] of Object.entries(root)) {
    if (value !== uri) continue;
    if (key === "@_xmlns") return "";
    if (key.startsWith("@_xmlns:")) return `${key.slice("@_xmlns:".length)}:`;
  }
  return undefined;
}
