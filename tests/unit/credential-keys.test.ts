import { describe, expect, test } from "bun:test";
import { credentialKeyRing, keyIdOf, ringKey, ringKids } from "../../shared/crypto/credential-keys.ts";
import { generateCredentialsKey } from "../../shared/crypto/credentials.ts";
import { ConfigError, loadEnv } from "../../shared/config/env.ts";

const shortKey = btoa(String.fromCharCode(...new Uint8Array(16).fill(7)));

describe("the credentials key ring", () => {
  test("CREDENTIALS_KEY alone is a ring of one key; previous keys follow it in the order given", () => {
    const [a, b, c] = [generateCredentialsKey(), generateCredentialsKey(), generateCredentialsKey()];
    const alone = credentialKeyRing({ CREDENTIALS_KEY: a });
    expect(alone.previous).toEqual([]);
    expect(alone.current.kid).toMatch(/^[0-9a-f]{8}$/);
    const ring = credentialKeyRing({ CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: ` ${b} , ${c}` });
    expect(ringKids(ring)).toEqual({ current: alone.current.kid, previous: [keyIdOf(Buffer.from(b, "base64")), keyIdOf(Buffer.from(c, "base64"))] });
    expect(ringKey(ring, ring.previous[1]!.kid)?.raw).toEqual(new Uint8Array(Buffer.from(c, "base64")));
    expect(ringKey(ring, "00000000")).toBeUndefined();
    expect(credentialKeyRing({ CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: "  " }).previous).toEqual([]);
  });

  test("the kid depends on the key only: the same key gives the same kid, another key another", () => {
    const key = generateCredentialsKey();
    expect(credentialKeyRing({ CREDENTIALS_KEY: key }).current.kid).toBe(credentialKeyRing({ CREDENTIALS_KEY: key }).current.kid);
    expect(credentialKeyRing({ CREDENTIALS_KEY: generateCredentialsKey() }).current.kid).not.toBe(credentialKeyRing({ CREDENTIALS_KEY: key }).current.kid);
  });

  test("each bad entry is named: bad base64, wrong length, empty, a key given twice", () => {
    const [a, b] = [generateCredentialsKey(), generateCredentialsKey()];
    expect(() => credentialKeyRing({ CREDENTIALS_KEY: "not base64!" })).toThrow("CREDENTIALS_KEY is not base64");
    expect(() => credentialKeyRing({ CREDENTIALS_KEY: shortKey })).toThrow("CREDENTIALS_KEY must decode to 32 bytes, it decodes to 16");
    expect(() => credentialKeyRing({ CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: `${b},${shortKey}` }))
      .toThrow("CREDENTIALS_KEYS_PREVIOUS entry 2 must decode to 32 bytes, it decodes to 16");
    expect(() => credentialKeyRing({ CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: `${b}x` })).toThrow("CREDENTIALS_KEYS_PREVIOUS entry 1 is not base64");
    expect(() => credentialKeyRing({ CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: `${b},,` })).toThrow("CREDENTIALS_KEYS_PREVIOUS entry 2 is empty");
    expect(() => credentialKeyRing({ CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: a }))
      .toThrow(/CREDENTIALS_KEYS_PREVIOUS entry 1 is the same key as CREDENTIALS_KEY \(kid [0-9a-f]{8}\)/);
    expect(() => credentialKeyRing({ CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: `${b},${b}` }))
      .toThrow("CREDENTIALS_KEYS_PREVIOUS entry 2 is the same key as CREDENTIALS_KEYS_PREVIOUS entry 1");
  });

  test("a process refuses to start with a bad ring, naming the entry", () => {
    const a = generateCredentialsKey();
    const error = (() => {
      try {
        loadEnv(["CREDENTIALS_KEY", "CREDENTIALS_KEYS_PREVIOUS"], { CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: `${a}` });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("CREDENTIALS_KEYS_PREVIOUS entry 1 is the same key as CREDENTIALS_KEY");
    const b = generateCredentialsKey();
    expect(loadEnv(["CREDENTIALS_KEY", "CREDENTIALS_KEYS_PREVIOUS"], { CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: b }))
      .toEqual({ CREDENTIALS_KEY: a, CREDENTIALS_KEYS_PREVIOUS: b });
    expect(loadEnv(["CREDENTIALS_KEY", "CREDENTIALS_KEYS_PREVIOUS"], { CREDENTIALS_KEY: a })).toEqual({ CREDENTIALS_KEY: a });
  });
});
