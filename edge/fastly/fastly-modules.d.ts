// For the root type-check (Node and DOM types), which must not load Compute's global types: they
// redeclare Request, Response, BodyInit… for every file. Here the `fastly:*` modules are opaque
// and the entry's `fetch` listener is declared as Compute dispatches it. The service itself is
// checked against @fastly/js-compute by edge/fastly/tsconfig.json, which leaves this file out.
declare module "fastly:backend";
declare module "fastly:config-store";
declare module "fastly:edge-rate-limiter";
declare module "fastly:env";
declare module "fastly:experimental";
declare module "fastly:kv-store";
declare module "fastly:secret-store";

declare function addEventListener(
  type: "fetch",
  listener: (event: {
    readonly request: Request;
    respondWith(response: Response | PromiseLike<Response>): void;
  }) => void,
): void;
