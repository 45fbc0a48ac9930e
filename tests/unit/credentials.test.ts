import { describe, expect, test } from "bun:test";
import { decryptCredentials, encryptCredentials, generateCredentialsKey } from "../../shared/crypto/credentials.ts";

const ACCOUNT = "3f0c6a52-7d7e-4c0e-9d55-2f1b7b1c9a10";
const shortKey = btoa(String.fromCharCode(...new Uint8Array(16).fill(7)));

describe("sealed account credentials", () => {
  test("what is sealed for an account opens for that account only", async () => {
    const key = generateCredentialsKey();
    const sealed = await encryptCredentials(key, { refresh_token: "rt-1" }, ACCOUNT);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/=]+$/);
    expect(await decryptCredentials(key, sealed, ACCOUNT)).toEqual({ refresh_token: "rt-1" });
    await expect(decryptCredentials(key, sealed, "another-account")).rejects.toThrow("cannot decrypt for account another-account");
  });

  test("exactly one format: extra segments, whitespace or a wrong iv size are refused before decryption", async () => {
    const key = generateCredentialsKey();
    const sealed = await encryptCredentials(key, { refresh_token: "rt-1" }, ACCOUNT);
    const [, iv, body] = sealed.split(".");
    for (const variant of [
      `${sealed}.extra`,
      `${sealed}.`,
      `v1.${iv}.${body}.${body}`,
      `v2.${iv}.${body}`,
      `v1.${iv}`,
      `v1.${iv!.slice(0, 8)} ${iv!.slice(8)}.${body}`,
      `v1.${btoa("0123456789abcdef")}.${body}`,
      `v1.${iv}.${body!.replace(/=+$/, "")}`,
    ]) {
      await expect(decryptCredentials(key, variant, ACCOUNT)).rejects.toThrow("credentials: unknown format");
    }
  });

  test("a key of the wrong length says so, on sealing and on opening", async () => {
    const key = generateCredentialsKey();
    const sealed = await encryptCredentials(key, { refresh_token: "rt-1" }, ACCOUNT);
    await expect(decryptCredentials(shortKey, sealed, ACCOUNT)).rejects.toThrow("CREDENTIALS_KEY must decode to 32 bytes, it decodes to 16");
    await expect(encryptCredentials(shortKey, { refresh_token: "rt-1" }, ACCOUNT)).rejects.toThrow("CREDENTIALS_KEY must decode to 32 bytes, it decodes to 16");
    await expect(decryptCredentials("not base64!", sealed, ACCOUNT)).rejects.toThrow("CREDENTIALS_KEY is not base64");
  });
});
