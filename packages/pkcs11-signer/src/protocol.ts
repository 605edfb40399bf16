import { z } from 'zod';

/**
 * What the PKCS#11 signer's thread and the event loop say to each other. Requests go in batches
 * (everything asked while the previous batch was on its way), each answered by its id, so many
 * signatures cost one message each way instead of one per signature.
 */
export const pkcs11RequestSchema = z.discriminatedUnion('op', [
  z.object({
    id: z.number().int(),
    op: z.literal('sign'),
    kid: z.string(),
    input: z.instanceof(Uint8Array),
  }),
  z.object({ id: z.number().int(), op: z.literal('generate') }),
  z.object({ id: z.number().int(), op: z.literal('public-jwk'), kid: z.string() }),
  z.object({ id: z.number().int(), op: z.literal('destroy'), kid: z.string() }),
]);
export type Pkcs11Request = z.infer<typeof pkcs11RequestSchema>;

/** Event loop → thread: a batch of requests, or the end. */
export const toWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('batch'), requests: z.array(pkcs11RequestSchema) }),
  z.object({ type: z.literal('close') }),
]);
export type ToWorker = z.infer<typeof toWorkerSchema>;

/** One request's answer: its value (a signature, a new key, a JWK or null), or why it failed. */
export const pkcs11ResultSchema = z.union([
  z.object({ id: z.number().int(), ok: z.literal(true), value: z.unknown() }),
  z.object({ id: z.number().int(), ok: z.literal(false), message: z.string() }),
]);
export type Pkcs11Result = z.infer<typeof pkcs11ResultSchema>;

/** Thread → event loop: logged in, or could not (which setting, why), a batch's answers, closed. */
export const fromWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('failed'), setting: z.string(), message: z.string() }),
  z.object({ type: z.literal('results'), results: z.array(pkcs11ResultSchema) }),
  z.object({ type: z.literal('closed') }),
]);
export type FromWorker = z.infer<typeof fromWorkerSchema>;
