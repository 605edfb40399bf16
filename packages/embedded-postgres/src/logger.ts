/**
 * What the launcher logs through: pino's shape (fields, then the message), so a service passes its
 * pino logger as it is, while this package needs no logging library of its own.
 */
export interface EmbeddedPostgresLogger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}
