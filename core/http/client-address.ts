// Who a request comes from, for the quota of refused tokens (refused-tokens.ts): the address the
// platform vouches for, which the entry hands in (the socket on Node and Deno, CF-Connecting-IP on
// Workers, the client address on Fastly). X-Forwarded-For is anyone's to write: it is read only
// when the vouched address is a proxy TRUSTED_PROXIES names, and then its right-most address that
// is not one of them (the one the nearest trusted proxy saw). An IPv6 client is counted by its /64,
// the least a network hands one subscriber: counting each address would give one machine 2^64.
import * as v from "valibot";
import { commaList, optional, settingsGroup } from "../settings/schema.ts";

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** `address` in one spelling (IPv4 dotted, IPv6 as URLs write it, an IPv4-mapped one as IPv4); undefined: none. */
export function canonicalAddress(address: string): string | undefined {
  const bare = address.trim().replace(/^\[(.*)\]$/, "$1");
  if (IPV4.test(bare)) return bare.split(".").map(Number).join(".");
  if (!bare.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(bare)) return undefined;
  let host: string;
  try {
    host = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const mapped = host.match(/^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/);
  if (!mapped) return host;
  const [high, low] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** The key a client is counted under: its IPv4 address, or its IPv6 address's /64. */
function quotaKey(canonical: string): string {
  if (!canonical.includes(":")) return canonical;
  const [head = "", tail = ""] = canonical.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = canonical.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups.slice(0, 4).join(":")}::/64`;
}

// Some proxies write the port they saw beside the address (`203.0.113.7:51234`, `[2001:db8::7]:443`):
// read as no address, such a hop ended the walk at the proxy, and everyone behind it shared one quota.
const WITH_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3})):\d{1,5}$/;

/** An X-Forwarded-For hop's address, without the port a proxy may have written beside it. */
function hopAddress(hop: string): string | undefined {
  const withPort = hop.trim().match(WITH_PORT);
  return canonicalAddress(withPort ? (withPort[1] ?? withPort[2])! : hop);
}

const proxyList = v.pipe(
  commaList(canonicalAddress, "IP addresses"),
  v.transform((addresses) => new Set(addresses)),
);

export const CLIENT_ADDRESS_SETTINGS = settingsGroup({ TRUSTED_PROXIES: optional(proxyList) }, (values) => ({
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES); empty: none is believed. */
  trustedProxies: values.TRUSTED_PROXIES ?? new Set<string>(),
}));

/**
 * The key a request's client is counted under, from the address the platform vouches for and,
 * when that is a trusted proxy, the X-Forwarded-For it sent; undefined when there is none.
 */
export function clientKey(
  vouched: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: ReadonlySet<string>,
): string | undefined {
  let client = vouched === undefined ? undefined : canonicalAddress(vouched);
  if (client !== undefined && trustedProxies.has(client) && forwardedFor) {
    // Right to left: each trusted proxy appended the address it saw; the first untrusted one is the client.
    for (const hop of forwardedFor.split(",").reverse()) {
      const address = hopAddress(hop);
      if (address === undefined) break;
      client = address;
      if (!trustedProxies.has(address)) break;
    }
  }
  return client === undefined ? undefined : quotaKey(client);
}
