/**
 * Who may use the dashboard: a one-time sign-in token printed by `mdame dashboard`, exchanged once
 * for a session cookie, and a per-session CSRF token that every form carries. Everything is held in
 * this process's memory, so a restart signs everyone out; tokens are compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const SESSION_COOKIE = "mdame_session";

/** A session ends after this long, used or not. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface Session {
  id: string;
  /** The token every form of this session carries, checked on each POST. */
  csrf: string;
  createdAt: number;
}

export interface Sessions {
  /** The one-time sign-in token (to print once); null once it was used. */
  readonly signInToken: string | null;
  /** Exchanges the sign-in token for a new session, once; null for a wrong or used token. */
  signIn(token: string): Session | null;
  /** The session a cookie value names, while it lasts. */
  find(sessionId: string | undefined): Session | null;
  /** Ends a session at once. */
  signOut(sessionId: string): void;
}

/** A random token of `bytes` bytes, base64url. */
function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** Equality of two strings whose time does not depend on where they differ (or on their length). */
export function sameToken(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(a), digest(b)) && a.length === b.length;
}

export function createSessions(now: () => number = Date.now, token: string = randomToken()): Sessions {
  let signInToken: string | null = token;
  const sessions = new Map<string, Session>();
  return {
    get signInToken() {
      return signInToken;
    },
    signIn(given) {
      if (signInToken === null || !sameToken(given, signInToken)) return null;
      signInToken = null;
      const session: Session = { id: randomToken(), csrf: randomToken(), createdAt: now() };
      sessions.set(session.id, session);
      return session;
    },
    find(sessionId) {
      if (!sessionId) return null;
      // A Map lookup by the cookie's value: the id is 256 random bits, so its timing tells nothing usable.
      const session = sessions.get(sessionId);
      if (!session) return null;
      if (now() - session.createdAt > SESSION_TTL_MS) {
        sessions.delete(session.id);
        return null;
      }
      return session;
    },
    signOut(sessionId) {
      sessions.delete(sessionId);
    },
  };
}
