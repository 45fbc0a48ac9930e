/**
 * Where a feed may be fetched from in prod: the ingest fetch runs inside the operator's network, so
 * a feed URL (or a redirect) that resolves to a loopback, private, link-local or otherwise
 * non-public address would reach what only that network should (a metadata endpoint, a local
 * admin page). Every address the name resolves to must be public unicast; a source that lists
 * `private_network: true` is fetched wherever it points (docs/reference/sources.md).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { ProviderRejectedError } from "../errors.ts";

/** The addresses a host name resolves to (an address literal resolves to itself). */
export type Lookup = (host: string) => Promise<string[]>;

const systemLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The first address of `host` that is not public unicast, with its range (loopback, private, ...), or null. */
export async function nonPublicAddress(host: string, lookup: Lookup = systemLookup): Promise<{ address: string; range: string } | null> {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const addresses = ipaddr.isValid(bare) ? [bare] : await lookup(bare);
  for (const address of addresses) {
    const parsed = ipaddr.process(address);
    const range = parsed.range();
    if (range !== "unicast") return { address: parsed.toString(), range };
  }
  return null;
}

/** Checks one URL the fetch is about to request; throws when it is not to be fetched. */
export type UrlGuard = (url: URL) => Promise<void>;

/** A guard refusing (non-retriable, naming the address) every URL whose host is not public. */
export function publicAddressGuard(provider: string, lookup: Lookup = systemLookup): UrlGuard {
  return async (url) => {
    let found: Awaited<ReturnType<typeof nonPublicAddress>>;
    try {
      found = await nonPublicAddress(url.hostname, lookup);
    } catch (error) {
      throw new ProviderRejectedError(provider, `${url.host} does not resolve (${error instanceof Error ? error.message : String(error)})`, { cause: error });
    }
    if (found) {
      throw new ProviderRejectedError(
        provider,
        `${url.origin} resolves to ${found.address} (${found.range}): ENV=prod fetches feeds from public addresses only; list private_network: true on the source to allow it`,
        { reason: "non_public_address" },
      );
    }
  };
}
