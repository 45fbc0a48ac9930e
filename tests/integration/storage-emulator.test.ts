/**
 * The Storage emulator speaks the protocol supabase-js and tus-js-client use: signed URLs, listing,
 * the service-key check, the body cap, upsert rules, resumable uploads that survive a dropped
 * chunk, persistence across a restart, and `POST /_emulator/reset`.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { createClient } from "@supabase/supabase-js";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmulator } from "../../emulators/main.ts";
import { SupabaseStore } from "../../shared/storage/supabase-store.ts";

const KEY = randomBytes(32).toString("hex");
const BUCKET = "mdame-protocol";
const CAP = 16 * 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let workDir: string;
let dataDir: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let logs: Record<string, unknown>[] = [];

const start = () => startEmulator({ port: 0, dataDir, storageServiceKey: KEY, storageMaxObjectBytes: CAP, log: (entry) => logs.push(entry) });
const client = (key = KEY) => createClient(emulator.url, key, { auth: { persistSession: false, autoRefreshToken: false } });
const files = (key = KEY) => client(key).storage.from(BUCKET);
const storageUrl = (p: string) => `${emulator.url}/storage/v1${p}`;
const keyHeaders = { apikey: KEY, authorization: `Bearer ${KEY}` };

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "mdame-storage-emulator-"));
  dataDir = path.join(workDir, "data");
  emulator = await start();
});
afterAll(async () => {
  await emulator?.stop();
  await rm(workDir, { recursive: true, force: true });
}, 60_000);
beforeEach(async () => {
  await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" });
  const { error } = await client().storage.createBucket(BUCKET, { public: false });
  expect(error).toBeNull();
  logs = [];
});

test("a bucket is created private, once; a second create is 409", async () => {
  const { data } = await client().storage.getBucket(BUCKET);
  expect(data).toMatchObject({ id: BUCKET, name: BUCKET, public: false });
  const again = await client().storage.createBucket(BUCKET, { public: false });
  expect(again.error).toMatchObject({ status: 409, statusCode: "409" });
  const missing = await client().storage.getBucket("no-such-bucket");
  expect(missing.error).toMatchObject({ status: 404, message: "Bucket not found" });
});

test("SupabaseStore creates its bucket once per process even when many uploads race", async () => {
  const source = path.join(workDir, "race.bin");
  await writeFile(source, randomBytes(10_000));
  const stores = [0, 1, 2].map(() => new SupabaseStore({ url: emulator.url, serviceRoleKey: KEY, bucket: "mdame-race" }));
  await Promise.all(stores.flatMap((store, i) => [0, 1].map((j) => store.putFile(`scenes/race-${i}-${j}.mp4`, source, "video/mp4"))));
  const creates = logs.filter((l) => l.method === "POST" && l.path === "/storage/v1/bucket");
  expect(creates.length).toBe(1);
  expect((await client().storage.getBucket("mdame-race")).data?.public).toBe(false);
  expect((await stores[0].list("scenes")).length).toBe(6);
});

test("list shows folders and objects under a prefix, with their size and type", async () => {
  await files().upload("scenes/b.mp4", new Uint8Array(20), { contentType: "video/mp4" });
  await files().upload("scenes/a.mp4", new Uint8Array(10), { contentType: "video/mp4" });
  await files().upload("voice/x.mp3", new Uint8Array(5), { contentType: "audio/mpeg" });
  const top = await files().list();
  expect(top.data?.map((e) => [e.name, e.id === null])).toEqual([["scenes", true], ["voice", true]]);
  const scenes = await files().list("scenes");
  expect(scenes.data?.map((e) => [e.name, e.metadata?.size, e.metadata?.mimetype])).toEqual([["a.mp4", 10, "video/mp4"], ["b.mp4", 20, "video/mp4"]]);
  const page = await files().list("scenes", { limit: 1, offset: 1, sortBy: { column: "name", order: "desc" } });
  expect(page.data?.map((e) => e.name)).toEqual(["a.mp4"]);
  const bad = await fetch(storageUrl(`/object/list/${BUCKET}`), { method: "POST", headers: keyHeaders, body: "{not json" });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ statusCode: "400", message: "body is not valid JSON" });
});

test("a signed URL downloads without a key, only its own object, only until it expires", async () => {
  const bytes = randomBytes(4096);
  await files().upload("renders/signed.mp4", bytes, { contentType: "video/mp4" });
  await files().upload("renders/other.mp4", randomBytes(10), { contentType: "video/mp4" });
  const { data, error } = await files().createSignedUrl("renders/signed.mp4", 60);
  expect(error).toBeNull();
  const response = await fetch(data!.signedUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("video/mp4");
  expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(sha256(bytes));

  const token = new URL(data!.signedUrl).searchParams.get("token")!;
  const elsewhere = await fetch(storageUrl(`/object/sign/${BUCKET}/renders/other.mp4?token=${token}`));
  expect(elsewhere.status).toBe(400);
  const tampered = await fetch(storageUrl(`/object/sign/${BUCKET}/renders/signed.mp4?token=${token.slice(0, -2)}xx`));
  expect(tampered.status).toBe(400);
  expect(await tampered.json()).toMatchObject({ code: "InvalidJWT", message: "invalid signature" });

  const batch = await files().createSignedUrls(["renders/signed.mp4", "renders/none.mp4"], 60);
  expect(batch.data?.map((d) => [d.path, d.signedUrl !== null])).toEqual([["renders/signed.mp4", true], ["renders/none.mp4", false]]);
  const missing = await files().createSignedUrl("renders/none.mp4", 60);
  expect(missing.error).toMatchObject({ status: 404 });

  const brief = await files().createSignedUrl("renders/signed.mp4", 1);
  await Bun.sleep(2100);
  const expired = await fetch(brief.data!.signedUrl);
  expect(expired.status).toBe(400);
  expect(await expired.json()).toMatchObject({ code: "InvalidJWT", message: "jwt expired" });
});

test("a signed URL answers byte ranges, so a <video> element can play and seek", async () => {
  const bytes = new Uint8Array(randomBytes(10_000));
  await files().upload("renders/ranged.mp4", bytes, { contentType: "video/mp4" });
  const { data } = await files().createSignedUrl("renders/ranged.mp4", 60);
  const url = data!.signedUrl;

  const whole = await fetch(url);
  expect(whole.headers.get("accept-ranges")).toBe("bytes");
  expect((await whole.arrayBuffer()).byteLength).toBe(10_000);

  const middle = await fetch(url, { headers: { range: "bytes=100-199" } });
  expect(middle.status).toBe(206);
  expect(middle.headers.get("content-range")).toBe("bytes 100-199/10000");
  expect(middle.headers.get("content-length")).toBe("100");
  expect(middle.headers.get("content-type")).toBe("video/mp4");
  expect(new Uint8Array(await middle.arrayBuffer())).toEqual(bytes.subarray(100, 200));

  const open = await fetch(url, { headers: { range: "bytes=9990-" } });
  expect(open.status).toBe(206);
  expect(open.headers.get("content-range")).toBe("bytes 9990-9999/10000");
  expect(new Uint8Array(await open.arrayBuffer())).toEqual(bytes.subarray(9990));

  const suffix = await fetch(url, { headers: { range: "bytes=-5" } });
  expect(suffix.status).toBe(206);
  expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(bytes.subarray(9995));

  // An end past the object is cut to it; a start past it cannot be served.
  const clamped = await fetch(url, { headers: { range: "bytes=9000-20000" } });
  expect(clamped.headers.get("content-range")).toBe("bytes 9000-9999/10000");
  expect((await clamped.arrayBuffer()).byteLength).toBe(1000);
  const past = await fetch(url, { headers: { range: "bytes=10000-" } });
  expect(past.status).toBe(416);
  expect(past.headers.get("content-range")).toBe("bytes */10000");

  // The keyed download honours ranges too.
  const keyed = await fetch(storageUrl(`/object/${BUCKET}/renders/ranged.mp4`), { headers: { ...keyHeaders, range: "bytes=0-0" } });
  expect(keyed.status).toBe(206);
  expect(new Uint8Array(await keyed.arrayBuffer())).toEqual(bytes.subarray(0, 1));

  // A range never opens an object to a forged token.
  const token = new URL(url).searchParams.get("token")!;
  const forged = await fetch(storageUrl(`/object/sign/${BUCKET}/renders/ranged.mp4?token=${token.slice(0, -3)}abc`), { headers: { range: "bytes=0-9" } });
  expect(forged.status).toBe(400);
});

test("only the service key gets in: no key 401, a wrong key 401, a wrong bearer 403", async () => {
  const none = await fetch(storageUrl(`/bucket/${BUCKET}`));
  expect(none.status).toBe(401);
  const wrongKey = await files("not-the-service-key-0000").download("scenes/a.mp4");
  expect(wrongKey.error).toMatchObject({ status: 401, message: "Invalid API key" });
  const wrongBearer = await fetch(storageUrl(`/bucket/${BUCKET}`), { headers: { apikey: KEY, authorization: "Bearer someone-elses-token" } });
  expect(wrongBearer.status).toBe(403);
  expect(await wrongBearer.json()).toMatchObject({ statusCode: "403", code: "InvalidJWT", error: "Unauthorized" });
  const tusRefused = await fetch(storageUrl("/upload/resumable"), { method: "POST", headers: { "tus-resumable": "1.0.0", "upload-length": "10" } });
  expect(tusRefused.status).toBe(401);
});

test("an upload without upsert does not replace an object (409); upsert and PUT do", async () => {
  await files().upload("voice/u.mp3", new TextEncoder().encode("first"), { contentType: "audio/mpeg" });
  const again = await files().upload("voice/u.mp3", new TextEncoder().encode("second"), { contentType: "audio/mpeg" });
  expect(again.error).toMatchObject({ status: 409, message: "The resource already exists" });
  expect(await (await files().download("voice/u.mp3")).data!.text()).toBe("first");
  await files().upload("voice/u.mp3", new TextEncoder().encode("upserted"), { contentType: "audio/mpeg", upsert: true });
  expect(await (await files().download("voice/u.mp3")).data!.text()).toBe("upserted");
  await files().update("voice/u.mp3", new Blob(["updated"], { type: "audio/mpeg" }));
  const download = await files().download("voice/u.mp3");
  expect(await download.data!.text()).toBe("updated");
  expect(download.data!.type).toBe("audio/mpeg");
  const authenticated = await fetch(storageUrl(`/object/authenticated/${BUCKET}/voice/u.mp3`), { headers: keyHeaders });
  expect(await authenticated.text()).toBe("updated");
  const head = await fetch(storageUrl(`/object/${BUCKET}/voice/u.mp3`), { method: "HEAD", headers: keyHeaders });
  expect([head.status, head.headers.get("content-length")]).toEqual([200, "7"]);
  const headMissing = await fetch(storageUrl(`/object/${BUCKET}/voice/none.mp3`), { method: "HEAD", headers: keyHeaders });
  expect(headMissing.status).toBe(404);
  const info = await files().info("voice/u.mp3");
  expect(info.data).toMatchObject({ name: "voice/u.mp3", size: 7, contentType: "audio/mpeg" });
});

/** A chunked body of `count` 1 MiB chunks, with no declared length. */
function megabytes(count: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new Uint8Array(1024 * 1024));
      if (++sent >= count) controller.close();
    },
  });
}

test("bodies past the cap are refused with 413 and leave nothing stored", async () => {
  const tooBig = new Uint8Array(CAP + 1);
  const refused = await files().upload("renders/huge.mp4", tooBig, { contentType: "video/mp4" });
  expect(refused.error).toMatchObject({ status: 413 });
  const chunked = await fetch(storageUrl(`/object/${BUCKET}/renders/huge.mp4`), {
    method: "POST",
    headers: { ...keyHeaders, "content-type": "video/mp4" },
    body: megabytes(21),
    duplex: "half",
  } as RequestInit);
  expect(chunked.status).toBe(413);
  const tus = await fetch(storageUrl("/upload/resumable"), {
    method: "POST",
    headers: {
      ...keyHeaders,
      "tus-resumable": "1.0.0",
      "upload-length": String(CAP + 1),
      "upload-metadata": `bucketName ${btoa(BUCKET)},objectName ${btoa("renders/huge.mp4")}`,
    },
  });
  expect(tus.status).toBe(413);
  const list = await fetch(storageUrl(`/object/list/${BUCKET}`), { method: "POST", headers: keyHeaders, body: JSON.stringify({ prefix: "x".repeat(70_000) }) });
  expect(list.status).toBe(413);
  expect((await files().exists("renders/huge.mp4")).data).toBe(false);
  const badKey = await fetch(storageUrl(`/object/${BUCKET}/scenes//x.mp4`), { method: "POST", headers: keyHeaders, body: "x" });
  expect(badKey.status).toBe(400);
  expect(await badKey.json()).toMatchObject({ code: "InvalidKey" });
});

test("a render whose chunk is cut off mid-upload resumes from the bytes Storage kept", async () => {
  const bytes = new Uint8Array(randomBytes(13 * 1024 * 1024));
  const source = path.join(workDir, "render.mp4");
  await writeFile(source, bytes);
  await fetch(`${emulator.url}/_emulator/faults`, {
    method: "POST",
    body: JSON.stringify({ service: "storage", kind: "drop_after_bytes", bytes: 2 * 1024 * 1024 }),
  });
  const store = new SupabaseStore({ url: emulator.url, serviceRoleKey: KEY, bucket: BUCKET, retryDelaysMs: [0, 50, 100] });
  expect((await store.putFile("renders/resumed.mp4", source, "video/mp4")).size_bytes).toBe(bytes.length);

  const tus = logs.filter((l) => String(l.path).startsWith("/storage/v1/upload/resumable"));
  expect(tus.map((l) => [l.method, l.status])).toEqual([
    ["POST", 201],
    ["PATCH", "dropped"],
    ["HEAD", 200],
    // From the 2 MiB kept: 2..8 MiB and 8..13 MiB. Starting over would take three chunks.
    ["PATCH", 204],
    ["PATCH", 204],
  ]);
  await store.getFile("renders/resumed.mp4", path.join(workDir, "resumed.mp4"));
  expect(sha256(await readFile(path.join(workDir, "resumed.mp4")))).toBe(sha256(bytes));
});

test("objects outlive an emulator restart; reset empties storage", async () => {
  await files().upload("scenes/kept.mp4", new TextEncoder().encode("kept bytes"), { contentType: "video/mp4" });
  await emulator.stop();
  emulator = await start();
  expect(await (await files().download("scenes/kept.mp4")).data!.text()).toBe("kept bytes");
  await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" });
  expect((await client().storage.getBucket(BUCKET)).error).toMatchObject({ status: 404 });
  expect((await client().storage.createBucket(BUCKET)).error).toBeNull();
  const gone = await files().download("scenes/kept.mp4");
  expect(gone.error).toMatchObject({ status: 404 });
});
