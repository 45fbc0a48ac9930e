/**
 * Encoded payloads: base64, hex and ROT13 blobs inside a title. A blob that decodes to readable
 * text is handed back to the detector (which decides whether it speaks to a model); random-looking
 * tokens (hashes, ids, long compound words) decode to bytes that are not text and are left alone.
 */

interface DecodedBlob {
  encoding: "base64" | "hex";
  text: string;
}

const BASE64_BLOB = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_BLOB = /(?<![0-9a-f])(?:[0-9a-f]{2}){8,}(?![0-9a-f])/gi;

/** Printable text with words: at least 85% letters, digits, spaces or punctuation, and a space. */
function readable(bytes: Uint8Array): string | undefined {
  if (bytes.length < 8) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  const chars = Array.from(text);
  const printable = chars.filter((c) => /[\p{L}\p{N}\p{P}\p{S} ]/u.test(c)).length;
  if (printable / chars.length < 0.85 || !/\s/.test(text) || !/\p{L}{2}/u.test(text)) return undefined;
  return text;
}

function fromBase64(blob: string): Uint8Array | undefined {
  const standard = blob.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (standard.length % 4 === 1) return undefined;
  try {
    const binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function fromHex(blob: string): Uint8Array {
  const bytes = new Uint8Array(blob.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(blob.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Every blob in `text` that decodes to readable text; at most `limit` of them. */
export function decodeBlobs(text: string, limit = 8): DecodedBlob[] {
  const found: DecodedBlob[] = [];
  for (const match of text.matchAll(HEX_BLOB)) {
    const decoded = readable(fromHex(match[0]));
    if (decoded) found.push({ encoding: "hex", text: decoded });
    if (found.length >= limit) return found;
  }
  for (const match of text.matchAll(BASE64_BLOB)) {
    if (/^[0-9a-f]+$/i.test(match[0])) continue;
    const bytes = fromBase64(match[0]);
    const decoded = bytes && readable(bytes);
    if (decoded) found.push({ encoding: "base64", text: decoded });
    if (found.length >= limit) return found;
  }
  return found;
}
