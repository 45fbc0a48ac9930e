/**
 * A `multipart/form-data` reader for Storage uploads. supabase-js sends a Blob as a form whose file
 * field has an empty name and filename (`name=""; filename=""`), which Bun's own form parser
 * drops; Storage takes the form's file part whatever its name.
 */

interface FormPart {
  name: string;
  /** Present (possibly empty) on a file part. */
  filename?: string;
  contentType?: string;
  body: Uint8Array;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle, from);
}

/** The parts of a form, or undefined when the body does not follow its boundary. */
export function parseMultipart(body: Uint8Array, contentType: string): FormPart[] | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return undefined;
  const encoder = new TextEncoder();
  const delimiter = encoder.encode(`--${boundary[1] ?? boundary[2]}`);
  const headerEnd = encoder.encode("\r\n\r\n");
  const parts: FormPart[] = [];
  let at = indexOf(body, delimiter, 0);
  if (at === -1) return undefined;
  for (;;) {
    at += delimiter.length;
    // `--` after a delimiter closes the form.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts;
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) return undefined;
    const headersStart = at + 2;
    const headersStop = indexOf(body, headerEnd, headersStart);
    if (headersStop === -1) return undefined;
    const next = indexOf(body, encoder.encode(`\r\n--${boundary[1] ?? boundary[2]}`), headersStop + 4);
    if (next === -1) return undefined;
    const headers = new TextDecoder().decode(body.subarray(headersStart, headersStop)).split("\r\n");
    const disposition = headers.find((h) => /^content-disposition:/i.test(h)) ?? "";
    const type = headers.find((h) => /^content-type:/i.test(h));
    const filename = /filename="([^"]*)"/i.exec(disposition);
    parts.push({
      name: /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? "",
      filename: filename ? filename[1] : undefined,
      contentType: type ? type.slice(type.indexOf(":") + 1).trim() : undefined,
      body: body.subarray(headersStop + 4, next),
    });
    at = next + 2;
  }
}
