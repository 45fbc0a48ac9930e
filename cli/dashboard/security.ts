/**
 * The dashboard's defences beyond the session: which Host it answers (DNS rebinding), which
 * requests may change something (CSRF: token, Origin and Sec-Fetch-Site), and the headers every
 * answer carries.
 */

/** The Host values the dashboard answers on `port`: its loopback address and localhost. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** True when the Host header names this dashboard (not a rebound DNS name). */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host !== undefined && allowedHosts(port).includes(host.toLowerCase());
}

/**
 * True when a POST comes from the dashboard's own pages: its Origin (when sent) is one of ours and
 * its Sec-Fetch-Site (when sent) is same-origin, and at least one of the two was sent (every
 * browser sends both on a form POST; a request with neither is not a browser's form).
 */
export function sameOriginPost(headers: { origin?: string; secFetchSite?: string }, port: number): boolean {
  const { origin, secFetchSite } = headers;
  if (origin === undefined && secFetchSite === undefined) return false;
  if (origin !== undefined && !allowedHosts(port).some((host) => origin.toLowerCase() === `http://${host}`)) return false;
  if (secFetchSite !== undefined && secFetchSite !== "same-origin") return false;
  return true;
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
