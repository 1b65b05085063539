// This machine's own names: only what goes to them may travel without TLS, since it never
// crosses a network.
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** Whether `hostname` (as URL.hostname gives it, IPv6 in brackets) names this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}
