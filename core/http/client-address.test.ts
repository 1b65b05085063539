import { describe, expect, it } from "vitest";
import { parseGroup } from "../settings/schema.ts";
import { CLIENT_ADDRESS_SETTINGS, canonicalAddress, clientKey } from "./client-address.ts";

const trusted = (list?: string) => parseGroup(CLIENT_ADDRESS_SETTINGS, { TRUSTED_PROXIES: list }).trustedProxies;

describe("the client address a quota counts", () => {
  it("is the address the platform vouches for: X-Forwarded-For is ignored unless it comes from a trusted proxy", () => {
    expect(clientKey("203.0.113.7", "198.51.100.1", trusted())).toBe("203.0.113.7");
    expect(clientKey("203.0.113.7", "198.51.100.1", trusted("10.0.0.1"))).toBe("203.0.113.7");
    expect(clientKey(undefined, "198.51.100.1", trusted())).toBeUndefined();
  });

  it("behind trusted proxies, is the right-most forwarded address no trusted proxy wrote", () => {
    const proxies = trusted("10.0.0.1, 10.0.0.2");
    expect(clientKey("10.0.0.1", "198.51.100.9, 203.0.113.7, 10.0.0.2", proxies)).toBe("203.0.113.7");
    // Only trusted proxies in the list: the left-most of them, as far as anything vouches.
    expect(clientKey("10.0.0.1", "10.0.0.2", proxies)).toBe("10.0.0.2");
    // A hop that is no address ends the walk at the last one that was.
    expect(clientKey("10.0.0.1", "forged, 10.0.0.2", proxies)).toBe("10.0.0.2");
  });

  it("behind a trusted proxy that writes the port beside the address, is that address: not the proxy's", () => {
    const proxies = trusted("10.0.0.1, 2001:db8::a");
    expect(clientKey("10.0.0.1", "203.0.113.7:51234", proxies)).toBe("203.0.113.7");
    expect(clientKey("10.0.0.1", "[2001:db8:1:2::7]:443", proxies)).toBe("2001:db8:1:2::/64");
    expect(clientKey("10.0.0.1", "203.0.113.7:51234, [2001:db8::a]:443", proxies)).toBe("203.0.113.7");
    // Anything else after an address is no hop: the walk ends at the last trusted one, as before.
    expect(clientKey("10.0.0.1", "203.0.113.7:port", proxies)).toBe("10.0.0.1");
  });

  it("spells one address one way, IPv4-mapped IPv6 as IPv4, and counts IPv6 by its /64", () => {
    expect(canonicalAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(canonicalAddress("[2001:DB8:0:0::1]")).toBe("2001:db8::1");
    expect(canonicalAddress("not an address")).toBeUndefined();
    expect(canonicalAddress("300.1.1.1")).toBeUndefined();
    expect(clientKey("2001:db8:1:2:aaaa::1", undefined, trusted())).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8:1:2:bbbb::9", undefined, trusted())).toBe("2001:db8:1:2::/64");
    expect(clientKey("::1", undefined, trusted())).toBe("0:0:0:0::/64");
    // Zeros elided before the fourth group: the /64 takes groups from after the "::" as well, so
    // two subscribers' networks (…:a:… and …:b:…) are not counted as one.
    expect(clientKey("2001::a:b:c:d:e", undefined, trusted())).toBe("2001:0:0:a::/64");
    expect(clientKey("2001::b:b:c:d:e", undefined, trusted())).toBe("2001:0:0:b::/64");
    expect(clientKey("::a:b:c:d:e:f", undefined, trusted())).toBe("0:0:a:b::/64");
  });

  it("refuses TRUSTED_PROXIES that are not IP addresses, naming it", () => {
    for (const bad of ["proxy.example", "10.0.0.1,,10.0.0.2", "10.0.0.0/8"]) {
      expect(() => trusted(bad)).toThrow(/^TRUSTED_PROXIES must be IP addresses, comma-separated$/);
    }
    expect(trusted(" ::ffff:10.0.0.1 ,2001:db8::1")).toEqual(new Set(["10.0.0.1", "2001:db8::1"]));
  });
});
