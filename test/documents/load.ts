// Concurrent document creation through the whole production path (app → Neon client → local
// endpoint → PostgreSQL), shared by the race suites and the max()+1 counter-example.

import { bearer } from "../../dev/support/tokens.ts";
import type { Harness } from "../support/harness.ts";

export { startLoadHarness } from "./load-harness.ts";

/** The load: 1,000 creates sent at once, spread over 5 tenants. */
export const SPREAD_LOAD = { tenants: 5, perTenant: 200 } as const;

export interface CreateRequest {
  tenantId: string;
  /** The token's `sub`; the default user's when absent. */
  subject?: string;
  contractId: string;
  title?: string;
  idempotencyKey?: string;
}

interface CreateAnswer {
  request: CreateRequest;
  status: number;
  replayed: boolean;
  body: Record<string, unknown>;
}

export const newTenants = (count: number, prefix = "t") =>
  Array.from({ length: count }, () => `${prefix}-${crypto.randomUUID().slice(0, 8)}`);

/** `perTenant` requests for each tenant, interleaved so every tenant is busy at once. */
export function interleaved(tenants: readonly string[], perTenant: number): CreateRequest[] {
  return Array.from({ length: perTenant }, (_, i) =>
    tenants.map((tenantId) => ({ tenantId, contractId: `C-${i}` })),
  ).flat();
}

/** Sends every request at once (tokens signed beforehand) and waits for all answers. */
export async function createAll(harness: Harness, requests: readonly CreateRequest[]): Promise<CreateAnswer[]> {
  const tokens = await signTokens(requests);
  return Promise.all(
    requests.map(async (request) => {
      const headers: Record<string, string> = { authorization: tokens.get(callerOf(request))! };
      if (request.idempotencyKey) headers["idempotency-key"] = request.idempotencyKey;
      const body =
        request.title === undefined
          ? { contractId: request.contractId }
          : { contractId: request.contractId, title: request.title };
      const response = await harness.request("/v1/documents", { method: "POST", headers, body });
      return {
        request,
        status: response.status,
        replayed: response.headers.get("idempotent-replayed") === "true",
        body: (await response.json()) as Record<string, unknown>,
      };
    }),
  );
}

/** Each tenant's answered docNumbers, ascending (duplicates kept, so they show). */
export function numbersByTenant(answers: readonly CreateAnswer[]): Map<string, number[]> {
  const byTenant = new Map<string, number[]>();
  for (const { request, body } of answers) {
    const numbers = byTenant.get(request.tenantId) ?? [];
    numbers.push(body.docNumber as number);
    byTenant.set(request.tenantId, numbers);
  }
  for (const numbers of byTenant.values()) numbers.sort((a, b) => a - b);
  return byTenant;
}

/** 1, 2, …, n */
export const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** How many answers had each status, e.g. { 201: 1000 }. */
export function statusCounts(answers: readonly { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

const callerOf = ({ tenantId, subject }: CreateRequest) => JSON.stringify([tenantId, subject]);

/** One token per caller (tenant and subject), keyed by callerOf. */
async function signTokens(requests: readonly CreateRequest[]): Promise<Map<string, string>> {
  const callers = new Map(requests.map((request) => [callerOf(request), request]));
  const signed = await Promise.all(
    [...callers.values()].map(async ({ tenantId: tid, subject: sub }) => (await bearer({ tid, sub })).authorization),
  );
  return new Map([...callers.keys()].map((caller, i) => [caller, signed[i]!]));
}
