/** Who changes the keys, for the key events: an operator on a host, or the service itself. */
export interface KeyActor {
  readonly actor: string;
  readonly origin: string;
}

/** The service itself, for key changes it makes on its own (the first key at start). */
export const SERVICE_ACTOR: KeyActor = { actor: 'service', origin: 'local' };
