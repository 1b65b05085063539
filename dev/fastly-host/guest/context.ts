import { type GuestMemory, HostCallError, Status } from "../abi.ts";
import type { LocalServerConfig } from "../manifest.ts";
import type { HostLink } from "../rpc.ts";
import type { Handles } from "./resources.ts";

/** One guest instance's view of the host: its memory, its handles, the link to the main thread. */
export interface GuestContext {
  memory: GuestMemory;
  handles: Handles;
  link: HostLink;
  config: LocalServerConfig;
  downstream: { request: number; body: number; clientAddress: string };
  /** A downstream request is being served (false between requests of a reused instance). */
  requestOpen: boolean;
  /** `next_request` promised a request that `next_request_wait`/`_abandon` has not taken yet. */
  nextRequestPending: boolean;
  /** Set once the guest has sent its response; a streaming body stays open after that. */
  response: { sent: boolean; streamingBody?: number };
}

type HostFunction = (...args: number[]) => void;

/**
 * A host module for the import object. Each function answers OK unless it throws a
 * `HostCallError`, whose status the guest then gets; any other exception traps the guest.
 */
export function hostModule(functions: Record<string, HostFunction>): Record<string, (...args: number[]) => number> {
  return Object.fromEntries(
    Object.entries(functions).map(([name, implementation]) => [
      name,
      (...args: number[]) => {
        try {
          implementation(...args);
          return Status.OK;
        } catch (error) {
          if (error instanceof HostCallError) return error.status;
          throw error;
        }
      },
    ]),
  );
}
