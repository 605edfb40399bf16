/** The most of a witness's answer that is read: a cosignature line is about 150 bytes. */
export const WITNESS_ANSWER_LIMIT = 64 * 1024;

/** A witness's answer as text, and whether it was longer than the limit (then cut there). */
export interface WitnessAnswerText {
  readonly text: string;
  readonly overLimit: boolean;
}

/**
 * Reads the body of a witness's answer, at most `limit` bytes: it is streamed, and reading stops
 * (the body is cancelled, which closes the connection) once the limit is passed, so a witness that
 * answers hundreds of megabytes costs the projector `limit` bytes, not its memory.
 */
export async function readWitnessAnswer(
  response: Response,
  limit = WITNESS_ANSWER_LIMIT,
): Promise<WitnessAnswerText> {
  if (!response.body) return { text: '', overLimit: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), overLimit: false };
    if (size + value.byteLength > limit) {
      chunks.push(value.subarray(0, limit - size));
      await reader.cancel().catch(() => undefined);
      return { text: Buffer.concat(chunks).toString('utf8'), overLimit: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}
