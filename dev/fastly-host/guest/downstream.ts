import { isIPv4, isIPv6 } from "node:net";
import { fail, Status } from "../abi.ts";
import { HeaderList } from "../header-list.ts";
import type { GuestContext } from "./context.ts";
import { hostModule } from "./context.ts";
import type { DownstreamRequest } from "./instance.ts";
import { Body } from "./resources.ts";

// The downstream requests an instance serves: the one it starts with and, when the service opts
// into reusable sandboxes (js-compute's `setReusableSandboxOptions`), the ones it asks for after
// that through fastly_http_downstream, as Viceroy serves them (src/wiggle_abi/http_downstream.rs).

/** Viceroy's bound on, and default for, the wait for a next request. */
const NEXT_REQUEST_TIMEOUT_MS = 10_000;
/** `$next_request_options_mask`: `timeout_ms` is set. */
const NEXT_REQUEST_TIMEOUT_FLAG = 1 << 1;

/** Hands the request to the instance: its handles are what `body_downstream_get` gives. */
export function beginRequest(ctx: GuestContext, request: DownstreamRequest): void {
  ctx.downstream = {
    request: ctx.handles.add({
      kind: "request",
      method: request.method,
      uri: request.url,
      headers: HeaderList.from(request.headers),
    }),
    body: ctx.handles.add(new Body(request.body)),
    clientAddress: request.clientAddress,
  };
  ctx.response = { sent: false };
  ctx.requestOpen = true;
}

/** The request is over: a client still without a response gets a 500 saying why. */
export function endRequest(ctx: GuestContext, reason: () => string): void {
  if (!ctx.requestOpen) return;
  ctx.requestOpen = false;
  if (!ctx.response.sent) {
    ctx.link.emit({
      event: "response",
      status: 500,
      headers: [["content-type", "text/plain"]],
      body: Buffer.from(`${reason()}\n`),
    });
  } else if (ctx.response.streamingBody !== undefined) {
    ctx.link.emit({ event: "end", complete: false });
  }
}

export function httpDownstreamModule(ctx: GuestContext) {
  const { memory, handles, link } = ctx;
  return hostModule({
    next_request: (mask: number, optionsPtr: number, promiseOut: number) => {
      if (ctx.nextRequestPending) fail(Status.LIMITEXCEEDED, "a next request is already promised");
      // The witx declares `timeout_ms` as u64; js-compute's struct has a u32 (its only field), so
      // only those four bytes are the guest's.
      const asked = mask & NEXT_REQUEST_TIMEOUT_FLAG ? memory.u32(optionsPtr) : NEXT_REQUEST_TIMEOUT_MS;
      ctx.nextRequestPending = true;
      memory.setU32(
        promiseOut,
        handles.add({ kind: "next-request", timeoutMs: Math.min(asked, NEXT_REQUEST_TIMEOUT_MS) }),
      );
    },
    next_request_wait: (promise: number, requestOut: number, bodyOut: number) => {
      if (ctx.requestOpen && !ctx.response.sent)
        fail(Status.UNSUPPORTED, "cannot accept requests without handling the outstanding one");
      const { timeoutMs } = handles.take(promise, "next-request");
      ctx.nextRequestPending = false;
      endRequest(ctx, () => "");
      const next = link.nextRequest(timeoutMs);
      if (!next) fail(Status.NONE, "no downstream request came in time");
      beginRequest(ctx, next!);
      memory.setU32(requestOut, ctx.downstream.request);
      memory.setU32(bodyOut, ctx.downstream.body);
    },
    // The client's address as 4 or 16 octets (an IPv4-mapped IPv6 peer as IPv4), as Viceroy writes it.
    downstream_client_ip_addr: (h: number, addrOut: number, nwrittenOut: number) => {
      handles.get(h, "request");
      const octets = addressOctets(ctx.downstream.clientAddress);
      if (!octets) fail(Status.NONE, "no client address");
      memory.write(addrOut, octets!);
      memory.setU32(nwrittenOut, octets!.length);
    },
    next_request_abandon: (promise: number) => {
      handles.take(promise, "next-request");
      ctx.nextRequestPending = false;
    },
  });
}

/** `address` as the octets Compute hands the guest; undefined when it is none. */
function addressOctets(address: string): Uint8Array | undefined {
  const v4 = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  if (isIPv4(v4)) return Uint8Array.from(v4.split(".").map(Number));
  if (!isIPv6(address)) return undefined;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return Uint8Array.from(
    groups.flatMap((group) => [Number.parseInt(group, 16) >> 8, Number.parseInt(group, 16) & 255]),
  );
}
