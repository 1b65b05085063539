import { fail, Status } from "../abi.ts";
import { HeaderList } from "../header-list.ts";
import type { BackendConfig } from "../manifest.ts";
import type { HostReplies, OutgoingRequest } from "../rpc.ts";
import type { GuestContext } from "./context.ts";
import { Body } from "./resources.ts";

// Requests to named backends. As in Compute, the backend decides where the request goes: its
// URL's scheme, host and port (and path prefix) are used; the request's own URL only gives the
// path and query. Only backends declared in fastly.toml exist; there are no dynamic ones.

/** Sends the request and body (both given up by the guest); returns the pending-request handle. */
export function sendToBackend(
  ctx: GuestContext,
  requestHandle: number,
  bodyHandle: number,
  backendName: string,
): number {
  const backend = ctx.config.backends[backendName];
  if (!backend) fail(Status.INVAL, `no backend named ${backendName}`);
  const request = ctx.handles.take(requestHandle, "request");
  const body = ctx.handles.take(bodyHandle, "body").drain();
  const outgoing = toBackend(backend!, request.method, request.uri, request.headers, body);
  const rpc = ctx.link.start({ op: "backend.send", backend: backendName, request: outgoing });
  return ctx.handles.add({ kind: "pending-request", rpc });
}

/** Blocks until the backend answered; a failure fills the guest's `$send_error_detail` tag. */
export function waitForBackend(ctx: GuestContext, pendingHandle: number, errorDetail: number): [number, number] {
  const { rpc } = ctx.handles.take(pendingHandle, "pending-request");
  ctx.link.waitAny([rpc], undefined);
  const reply = ctx.link.take(rpc) as HostReplies["backend.send"];
  if ("sendError" in reply) {
    if (errorDetail) ctx.memory.setU32(errorDetail, reply.sendError.tag);
    return fail(Status.ERROR, `backend request failed: ${reply.sendError.message}`);
  }
  const { status, headers, body } = reply.response;
  const response = ctx.handles.add({ kind: "response", status, headers: HeaderList.from(headers) });
  return [response, ctx.handles.add(new Body(body))];
}

function toBackend(
  backend: BackendConfig,
  method: string,
  uri: string,
  headers: HeaderList,
  body: Uint8Array,
): OutgoingRequest {
  const target = new URL(backend.url);
  const original = new URL(uri, "http://invalid");
  const prefix = target.pathname.replace(/\/$/, "");
  const url = `${target.protocol}//${target.host}${prefix}${original.pathname}${original.search}`;
  const host = backend.overrideHost ?? headers.values("host")[0] ?? (URL.canParse(uri) ? original.host : target.host);
  const outgoing = HeaderList.from(headers.entries());
  outgoing.insert("host", host);
  return { method, url, headers: outgoing.entries(), body };
}
