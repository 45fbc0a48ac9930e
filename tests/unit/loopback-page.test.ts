import { expect, test } from "bun:test";
import { CliError } from "../../cli/errors.ts";
import { escapeHtml, listenForRedirect } from "../../cli/loopback-redirect.ts";

const PAYLOAD = `<script>alert("x")</script><img src=x onerror='y'>&`;

test("the provider's error is shown as text on the page, never as markup", async () => {
  const redirect = await listenForRedirect("state-1", 10_000);
  try {
    const url = new URL(redirect.redirectUri);
    url.searchParams.set("state", "state-1");
    url.searchParams.set("error", PAYLOAD);
    const response = await fetch(url);
    const html = await response.text();
    expect(response.status).toBe(400);
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'");
    const failure = await redirect.code.then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(CliError);
  } finally {
    await redirect.close();
  }
});

test("escapeHtml leaves plain text alone and escapes every markup character", () => {
  expect(escapeHtml("access_denied")).toBe("access_denied");
  expect(escapeHtml(`<>&"'`)).toBe("&lt;&gt;&amp;&quot;&#39;");
});
