import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import {
  MalformedBodyError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '../errors/errors.js';

/** Body formats an endpoint may take. */
export type BodyFormat = 'json' | 'form';

const MEDIA_TYPE: Readonly<Record<BodyFormat, string>> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
};

/**
 * Requires one of `formats` as Content-Type (else 415), parses it within `limitBytes` (else 413),
 * and turns unreadable JSON into a 400. The parsed value lands in ctx.request.body.
 */
export function readBody(
  formats: readonly BodyFormat[],
  limitBytes: number,
  options: { readonly optional?: boolean } = {},
): Middleware {
  const accepted = formats.map((format) => MEDIA_TYPE[format]);
  const parse = bodyParser({
    enableTypes: [...formats],
    jsonLimit: limitBytes,
    formLimit: limitBytes,
    jsonStrict: true,
    // DELETE /v1/credential/{id} takes an optional {"reason"}; the default skips DELETE bodies.
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  });
  return async (ctx, next) => {
    // An optional body may be left out entirely (no Content-Type, no bytes): it reads as {}.
    const empty = !ctx.get('content-type') && !ctx.get('transfer-encoding') && !ctx.request.length;
    if (options.optional && empty) {
      ctx.request.body = {};
      return next();
    }
    const mediaType = ctx.get('content-type').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!accepted.includes(mediaType)) throw new UnsupportedMediaTypeError(accepted);
    try {
      await parse(ctx, async () => undefined);
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw new PayloadTooLargeError(limitBytes);
      if (status === 415) throw new UnsupportedMediaTypeError(accepted);
      throw new MalformedBodyError(
        mediaType === 'application/json'
          ? 'request body is not valid JSON (an object is expected)'
          : 'request body could not be parsed as form data',
      );
    }
    await next();
  };
}
