import { fail, Status } from "../abi.ts";
import { countDurationProblem, type ErlCall, penaltyTtlProblem, rateWindowProblem } from "../edge-rate-limiter.ts";
import { type GuestContext, hostModule } from "./context.ts";

// fastly_erl: Fastly's Edge Rate Limiter (`fastly:edge-rate-limiter`). Strings arrive as pointer
// and length; the counters and penalty boxes live on the main thread, shared by every instance.

export function erlModule(ctx: GuestContext) {
  const { memory, link } = ctx;
  const text = (ptr: number, len: number) => memory.text(ptr, len);
  const check = (problem: string | undefined) => {
    if (problem) fail(Status.INVAL, problem);
  };
  const call = (erlCall: ErlCall) => link.call({ op: "erl", call: erlCall }).value;
  return hostModule({
    check_rate: (
      rcPtr: number,
      rcLen: number,
      entryPtr: number,
      entryLen: number,
      delta: number,
      window: number,
      limit: number,
      pbPtr: number,
      pbLen: number,
      ttl: number,
      blockedOut: number,
    ) => {
      check(rateWindowProblem(window) ?? penaltyTtlProblem(ttl));
      const counter = text(rcPtr, rcLen);
      const [entry, box] = [text(entryPtr, entryLen), text(pbPtr, pbLen)];
      memory.setU32(blockedOut, call({ fn: "check_rate", counter, entry, delta, window, limit, box, ttl }));
    },
    ratecounter_increment: (rcPtr: number, rcLen: number, entryPtr: number, entryLen: number, delta: number) => {
      call({ fn: "ratecounter_increment", counter: text(rcPtr, rcLen), entry: text(entryPtr, entryLen), delta });
    },
    ratecounter_lookup_rate: (
      rcPtr: number,
      rcLen: number,
      entryPtr: number,
      entryLen: number,
      window: number,
      out: number,
    ) => {
      check(rateWindowProblem(window));
      const counter = text(rcPtr, rcLen);
      memory.setU32(out, call({ fn: "ratecounter_lookup_rate", counter, entry: text(entryPtr, entryLen), window }));
    },
    ratecounter_lookup_count: (
      rcPtr: number,
      rcLen: number,
      entryPtr: number,
      entryLen: number,
      duration: number,
      out: number,
    ) => {
      check(countDurationProblem(duration));
      const counter = text(rcPtr, rcLen);
      memory.setU32(out, call({ fn: "ratecounter_lookup_count", counter, entry: text(entryPtr, entryLen), duration }));
    },
    penaltybox_add: (pbPtr: number, pbLen: number, entryPtr: number, entryLen: number, ttl: number) => {
      check(penaltyTtlProblem(ttl));
      call({ fn: "penaltybox_add", box: text(pbPtr, pbLen), entry: text(entryPtr, entryLen), ttl });
    },
    penaltybox_has: (pbPtr: number, pbLen: number, entryPtr: number, entryLen: number, out: number) => {
      memory.setU32(out, call({ fn: "penaltybox_has", box: text(pbPtr, pbLen), entry: text(entryPtr, entryLen) }));
    },
  });
}
