/**
 * The dashboard's defences beyond the session: which Host it answers (DNS rebinding), which
 * requests may change something (CSRF: token, Origin and Sec-Fetch-Site), and the headers every
 * answer carries.
 */

/** The Host values a loopback server answers on `port`: its loopback address, localhost, and the address it was bound to. */
function allowedHosts(port: number, boundTo: string[] = []): string[] {
  return ["127.0.0.1", "localhost", ...boundTo].map((name) => `${name.toLowerCase()}:${port}`);
}

/** True when the Host header names this server (not a rebound DNS name); the dashboard's, and the MCP server's with its bound address. */
export function hostAllowed(host: string | null | undefined, port: number, boundTo: string[] = []): boolean {
  return host !== undefined && host !== null && allowedHosts(port, boundTo).includes(host.toLowerCase());
}

/** A host as a URL's authority names it: an IPv6 address in brackets. */
export function bracketHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/**
 * True when a POST comes from the dashboard's own pages. Sec-Fetch-Site is set by the browser and
 * cannot be set by a page, so when it is sent it must be same-origin; the Origin, when sent, must be
 * ours, or `null`, which is what a browser sends for a same-origin form under Referrer-Policy
 * no-referrer (then only a same-origin Sec-Fetch-Site lets it through). A request with neither header
 * is not a browser's form, and one with an unknown Origin is another site's.
 */
export function sameOriginPost(headers: { origin?: string; secFetchSite?: string }, port: number): boolean {
  const { origin, secFetchSite } = headers;
  if (origin === undefined && secFetchSite === undefined) return false;
  if (secFetchSite !== undefined && secFetchSite !== "same-origin") return false;
  if (origin === undefined) return true;
  if (origin === "null") return secFetchSite === "same-origin";
  return allowedHosts(port).some((host) => origin.toLowerCase() === `http://${host}`);
}

/**
 * Content-Security-Policy: nothing runs, nothing embeds the pages; styles from our one CSS file;
 * media only from the origins a page names (the signed Storage URLs of its renders).
 */
export function contentSecurityPolicy(mediaOrigins: readonly string[] = []): string {
  const media = mediaOrigins.length > 0 ? mediaOrigins.join(" ") : "'none'";
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    `media-src ${media}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/** The headers of every answer. */
export function securityHeaders(mediaOrigins: readonly string[] = []): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(mediaOrigins),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
  };
}
