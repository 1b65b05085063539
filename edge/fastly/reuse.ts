// Reusable sandboxes: one instance serves request after request instead of one each, so what a
// request would otherwise redo (reading the stores, the first run of its JavaScript, the
// link-sync lease check) is done once per instance. Nothing kept between requests belongs to one
// request (core's memos are keyed by token text and link target, as on the other runtimes, whose
// isolates also serve many). The settings are read once per instance while Config and Secret
// Store values can change without a new version: an instance serves for at most a minute, so a
// changed value is seen within one. A request that fails, or leaves a timer behind, ends its
// instance (js-compute's own rule). Set at build time, as js-compute requires.
export const SANDBOX_REUSE = {
  maxRequests: 0,
  sandboxTimeoutMs: 60_000,
  betweenRequestTimeoutMs: 10_000,
  maxMemoryMiB: 64,
};
