/**
 * The signed formats of plan decisions and permission answers, as zod schemas: the claim a signature
 * covers, the root's certificate for a lead's key, and the signatures a request's response carries.
 * Only the shapes: signing and checking them is trust.ts's (docs/protocol.md, "Signed plan decisions").
 */
import { z } from './zod.js';

/** What a signature says: this decision, on this plan text, for this member's request, in this run. */
export const DecisionClaim = z.object({
  team: z.string(),
  run: z.string(),
  requestId: z.string(),
  member: z.string(),
  approver: z.string(),
  decision: z.enum(['approve', 'reject']),
  planSha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type DecisionClaim = z.infer<typeof DecisionClaim>;

/** The root's statement that `publicKey` speaks for `member` (the lead) in this team and run. */
export const Certificate = z.object({
  team: z.string(),
  run: z.string(),
  member: z.string(),
  publicKey: z.string(),
  signature: z.string(),
});
export type Certificate = z.infer<typeof Certificate>;

/** A signed decision as stored in a request's response. */
export const SignedDecision = z.object({
  claim: DecisionClaim,
  signature: z.string(),
  certificate: Certificate.nullable().default(null),
});
export type SignedDecision = z.infer<typeof SignedDecision>;

/**
 * What the operator's signature on a permission answer says: allow or deny this tool call (its
 * tool and input, as the request recorded them), for this member's request in this run, with this
 * feedback text (it reaches the member's model as the operator's words).
 */
export const PermissionClaim = z.object({
  kind: z.literal('permission'),
  team: z.string(),
  run: z.string(),
  requestId: z.string(),
  member: z.string(),
  approver: z.string(),
  decision: z.enum(['allow', 'deny']),
  callSha256: z.string().regex(/^[0-9a-f]{64}$/),
  textSha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type PermissionClaim = z.infer<typeof PermissionClaim>;

/** A signed permission answer, as stored in a request's response (always the root key's). */
export const SignedPermission = z.object({ claim: PermissionClaim, signature: z.string() });
export type SignedPermission = z.infer<typeof SignedPermission>;

/** Whatever signature a request's response carries: a plan decision or a permission answer. */
export const ResponseSignature = z.union([SignedDecision, SignedPermission]);
export type ResponseSignature = z.infer<typeof ResponseSignature>;
