import { BodyWriteEnd, fail, HttpVersion, Status } from "../abi.ts";
import { HeaderList, writeMultiValue } from "../header-list.ts";
import { sendToBackend, waitForBackend } from "./backend-requests.ts";
import { type GuestContext, hostModule } from "./context.ts";
import { Body } from "./resources.ts";

// fastly_http_req, fastly_http_resp and fastly_http_body: requests, responses and bodies as
// handles, the downstream request in, the downstream response out.

const METHOD = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function headerFunctions(ctx: GuestContext, kind: "request" | "response") {
  const { memory, handles } = ctx;
  const headers = (h: number) => handles.get(h, kind).headers;
  return {
    header_names_get: (h: number, ...rest: number[]) => writeMultiValue(memory, headers(h).names(), rest),
    header_values_get: (h: number, namePtr: number, nameLen: number, ...rest: number[]) =>
      writeMultiValue(memory, headers(h).values(memory.latin1(namePtr, nameLen)), rest),
    header_value_get: (
      h: number,
      namePtr: number,
      nameLen: number,
      buf: number,
      bufLen: number,
      nwrittenOut: number,
    ) => {
      const [value] = headers(h).values(memory.latin1(namePtr, nameLen));
      if (value === undefined) fail(Status.INVAL, "no such header");
      memory.writeSized(Buffer.from(value!, "latin1"), buf, bufLen, nwrittenOut);
    },
    header_insert: (h: number, namePtr: number, nameLen: number, valuePtr: number, valueLen: number) =>
      headers(h).insert(memory.latin1(namePtr, nameLen), memory.latin1(valuePtr, valueLen)),
    header_append: (h: number, namePtr: number, nameLen: number, valuePtr: number, valueLen: number) =>
      headers(h).append(memory.latin1(namePtr, nameLen), memory.latin1(valuePtr, valueLen)),
    header_remove: (h: number, namePtr: number, nameLen: number) => {
      if (!headers(h).remove(memory.latin1(namePtr, nameLen))) fail(Status.INVAL, "no such header");
    },
    version_get: (h: number, out: number) => {
      handles.get(h, kind);
      memory.setU32(out, HttpVersion.HTTP_11);
    },
  };
}

export function httpRequestModule(ctx: GuestContext) {
  const { memory, handles } = ctx;
  const request = (h: number) => handles.get(h, "request");
  return hostModule({
    ...headerFunctions(ctx, "request"),
    body_downstream_get: (requestOut: number, bodyOut: number) => {
      memory.setU32(requestOut, ctx.downstream.request);
      memory.setU32(bodyOut, ctx.downstream.body);
    },
    new: (out: number) =>
      memory.setU32(out, handles.add({ kind: "request", method: "GET", uri: "/", headers: new HeaderList() })),
    method_get: (h: number, buf: number, bufLen: number, nwrittenOut: number) =>
      memory.writeSized(Buffer.from(request(h).method), buf, bufLen, nwrittenOut),
    method_set: (h: number, ptr: number, len: number) => {
      const method = memory.text(ptr, len);
      if (!METHOD.test(method)) fail(Status.HTTPINVALID, `invalid method ${JSON.stringify(method)}`);
      request(h).method = method;
    },
    uri_get: (h: number, buf: number, bufLen: number, nwrittenOut: number) =>
      memory.writeSized(Buffer.from(request(h).uri), buf, bufLen, nwrittenOut),
    uri_set: (h: number, ptr: number, len: number) => {
      const uri = memory.text(ptr, len);
      if (!URL.canParse(uri) && !uri.startsWith("/")) fail(Status.HTTPINVALID, `invalid URI ${JSON.stringify(uri)}`);
      request(h).uri = uri;
    },
    send_async: (h: number, body: number, namePtr: number, nameLen: number, pendingOut: number) =>
      memory.setU32(pendingOut, sendToBackend(ctx, h, body, memory.text(namePtr, nameLen))),
    send_async_v2: (
      h: number,
      body: number,
      namePtr: number,
      nameLen: number,
      streaming: number,
      pendingOut: number,
    ) => {
      if (streaming) throw new Error("unimplemented: streaming request bodies to backends (send_async_v2 streaming=1)");
      memory.setU32(pendingOut, sendToBackend(ctx, h, body, memory.text(namePtr, nameLen)));
    },
    pending_req_wait_v2: (h: number, errorDetail: number, responseOut: number, bodyOut: number) => {
      const [response, body] = waitForBackend(ctx, h, errorDetail);
      memory.setU32(responseOut, response);
      memory.setU32(bodyOut, body);
    },
  });
}

export function httpResponseModule(ctx: GuestContext) {
  const { memory, handles, link } = ctx;
  return hostModule({
    ...headerFunctions(ctx, "response"),
    new: (out: number) => memory.setU32(out, handles.add({ kind: "response", status: 200, headers: new HeaderList() })),
    status_get: (h: number, out: number) => memory.setU16(out, handles.get(h, "response").status),
    status_set: (h: number, status: number) => {
      if (status < 100 || status > 999) fail(Status.INVAL, `invalid status ${status}`);
      handles.get(h, "response").status = status;
    },
    send_downstream: (h: number, bodyHandle: number, streaming: number) => {
      if (ctx.response.sent) fail(Status.ERROR, "a response was already sent downstream");
      const response = handles.take(h, "response");
      const body = streaming ? handles.get(bodyHandle, "body") : handles.take(bodyHandle, "body");
      ctx.response.sent = true;
      const head = { status: response.status, headers: response.headers.entries() };
      if (!streaming) return link.emit({ event: "response", ...head, body: body.drain() });
      link.emit({ event: "response", ...head });
      const buffered = body.drain();
      if (buffered.length) link.emit({ event: "chunk", data: buffered });
      body.stream = (data) => link.emit({ event: "chunk", data });
      ctx.response.streamingBody = bodyHandle;
    },
  });
}

export function httpBodyModule(ctx: GuestContext) {
  const { memory, handles, link } = ctx;
  const body = (h: number) => handles.get(h, "body");
  const finishStream = (h: number, complete: boolean) => {
    if (ctx.response.streamingBody !== h) return;
    ctx.response.streamingBody = undefined;
    link.emit({ event: "end", complete });
  };
  return hostModule({
    new: (out: number) => memory.setU32(out, handles.add(new Body())),
    read: (h: number, buf: number, bufLen: number, nreadOut: number) => {
      const data = body(h).read(bufLen);
      memory.write(buf, data);
      memory.setU32(nreadOut, data.length);
    },
    write: (h: number, ptr: number, len: number, end: number, nwrittenOut: number) => {
      const data = memory.bytes(ptr, len);
      if (end === BodyWriteEnd.FRONT) body(h).pushFront(data);
      else body(h).pushBack(data);
      memory.setU32(nwrittenOut, len);
    },
    append: (dest: number, src: number) => {
      const content = handles.take(src, "body").drain();
      body(dest).pushBack(content);
    },
    close: (h: number) => {
      handles.take(h, "body");
      finishStream(h, true);
    },
    abandon: (h: number) => {
      handles.take(h, "body");
      finishStream(h, false);
    },
    known_length: (h: number, out: number) => {
      const target = body(h);
      if (target.stream) fail(Status.NONE, "a streaming body has no known length");
      memory.setU64(out, BigInt(target.length));
    },
  });
}
