/**
 * The loopback end of an OAuth 2.0 installed-app flow (RFC 8252): an HTTP server on 127.0.0.1 and
 * an ephemeral port that waits for the browser to be redirected back with `code` and `state`.
 * The state must be the one this flow sent (anything else may be a forged request and ends the
 * flow); an `error` from the provider ends it too; other paths are 404 and the wait goes on.
 * Before the wait, the consent address is shown (and opened in the desktop's browser, when there is one).
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import process from "node:process";
import { constantTimeEqual } from "../shared/crypto/constant-time.ts";
import { CliError, EXIT } from "./errors.ts";
import { println, type Screen } from "./output.ts";

const CALLBACK_PATH = "/oauth2/callback";

interface LoopbackRedirect {
  /** `http://127.0.0.1:<port>/oauth2/callback`. */
  redirectUri: string;
  /** Resolves with the authorization code; rejects (CliError) on a refused consent, a wrong state or the timeout. */
  code: Promise<string>;
  /** Stops listening; safe to call more than once. */
  close(): Promise<void>;
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML shows it literally: whatever a redirect carries is never markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

function page(response: ServerResponse, status: number, title: string, text: string): void {
  const [t, p] = [escapeHtml(title), escapeHtml(text)];
  const body = `<!doctype html><meta charset="utf-8"><title>mdame: ${t}</title><h1>${t}</h1><p>${p}</p>`;
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    // A second line of defence: the page runs no script and loads nothing.
    "content-security-policy": "default-src 'none'",
    "x-content-type-options": "nosniff",
    connection: "close",
  });
  response.end(body);
}

/** Listens on 127.0.0.1 (an ephemeral port) for the redirect carrying `expectedState`. */
export async function listenForRedirect(expectedState: string, timeoutMs: number): Promise<LoopbackRedirect> {
  let settle!: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // The caller awaits it; this keeps a rejection nobody awaits any more (after close) from crashing the process.
  code.catch(() => {});
  let done = false;
  const finish = (outcome: { code: string } | { error: CliError }) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    if ("code" in outcome) settle.resolve(outcome.code);
    else settle.reject(outcome.error);
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method !== "GET" || url.pathname !== CALLBACK_PATH) {
      page(response, 404, "Not found", "This address only receives the sign-in redirect.");
      return;
    }
    if (done) {
      page(response, 409, "Already handled", "This sign-in has already been handled; look at the terminal.");
      return;
    }
    const state = url.searchParams.get("state") ?? "";
    if (!constantTimeEqual(state, expectedState)) {
      page(response, 400, "Sign-in refused", "The redirect does not carry the state this sign-in sent. Nothing was connected.");
      finish({ error: new CliError("the sign-in redirect carried the wrong state (a forged or stale request): refused, nothing connected", EXIT.failure) });
      return;
    }
    const error = url.searchParams.get("error");
    if (error) {
      page(response, 400, "Sign-in not completed", `The provider answered ${error}. Nothing was connected.`);
      finish({
        error: new CliError(
          `the sign-in was not completed: ${error}${url.searchParams.get("error_description") ? ` (${url.searchParams.get("error_description")})` : ""}`,
          EXIT.failure,
        ),
      });
      return;
    }
    const received = url.searchParams.get("code");
    if (!received) {
      page(response, 400, "Sign-in refused", "The redirect carries no authorization code.");
      finish({ error: new CliError("the sign-in redirect carried no authorization code", EXIT.failure) });
      return;
    }
    page(response, 200, "Signed in", "mdame received the authorization. You can close this tab and return to the terminal.");
    finish({ code: received });
  });

  const timer = setTimeout(() => {
    finish({
      error: new CliError(
        `no sign-in within ${Math.round(timeoutMs / 1000)} s: nothing connected (run the command again, or give more time with --timeout)`,
        EXIT.failure,
      ),
    });
  }, timeoutMs);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as { port: number };

  let closed: Promise<void> | null = null;
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    code,
    close() {
      clearTimeout(timer);
      if (!done) finish({ error: new CliError("the sign-in was abandoned", EXIT.failure) });
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** Opens `url` in the desktop's browser when there is one; false when none could be started. */
function openInBrowser(url: string): boolean {
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  if (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
  if (spawnSync(process.platform === "win32" ? "where" : "which", [opener], { stdio: "ignore" }).status !== 0) return false;
  try {
    spawn(opener, [url], { stdio: "ignore", detached: true }).unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * Shows the consent address on `err` after `who` (`To let mdame publish to ...`), opens it in the
 * browser when asked and there is one, and says where and how long the sign-in is awaited.
 */
export function showConsent(err: Screen, who: string, consentUrl: string, redirectUri: string, options: { openBrowser: boolean; timeoutMs: number }): void {
  println(err, `${who}, open this address and allow access:`);
  println(err, `  ${consentUrl}`);
  const opened = options.openBrowser && openInBrowser(consentUrl);
  println(
    err,
    `${opened ? "(opened in your browser) " : ""}waiting for the sign-in on ${redirectUri} (up to ${Math.round(options.timeoutMs / 1000)} s)...`,
  );
}
