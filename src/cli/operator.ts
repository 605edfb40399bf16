import { hostname, userInfo } from 'node:os';
import type { KeyActor } from '../tokens/signing-keys.js';

/** Who runs a command-line change, as recorded in its events: the OS user on this host. */
export function operatorActor(): KeyActor {
  return { actor: `operator:${userInfo().username}`, origin: `cli@${hostname()}` };
}
