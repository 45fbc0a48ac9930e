/**
 * The dashboard's defences beyond the session: which Host it answers (DNS rebinding), which
 * requests may change something (CSRF: token, Origin and Sec-Fetch-Site), and the headers every
 * answer carries.
 */

/** The Host values the dashboard answers on `port`: its loopback address and localhost. */
function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** True when the Host header names this dashboard (not a rebound DNS name). */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host !== undefined && allowedHosts(port).includes(host.toLowerCase());
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
