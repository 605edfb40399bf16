/**
 * The PKCS#11 signer's thread: it alone holds the token session and waits on the HSM, so the
 * event loop that serves requests never does. Started by pkcs11-signer.ts with the settings as
 * workerData; answers each batch of requests with one message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pkcs11SettingsSchema } from './settings.js';
import {
  toWorkerSchema,
  type FromWorker,
  type Pkcs11Request,
  type Pkcs11Result,
} from './protocol.js';
import { Pkcs11Failure } from './errors.js';
import { pkcs11Reason, TokenSession } from './token-session.js';

const port = parentPort!;
const post = (message: FromWorker) => port.postMessage(message);

let session: TokenSession;
try {
  session = new TokenSession(pkcs11SettingsSchema.parse(workerData));
  post({ type: 'ready' });
} catch (error) {
  post({
    type: 'failed',
    setting: error instanceof Pkcs11Failure ? error.setting : 'PKCS11_MODULE',
    message: error instanceof Pkcs11Failure ? error.message : pkcs11Reason(error),
  });
  port.close();
}

function answer(request: Pkcs11Request): Pkcs11Result {
  try {
    switch (request.op) {
      case 'sign':
        return { id: request.id, ok: true, value: session.sign(request.kid, request.input) };
      case 'generate':
        return { id: request.id, ok: true, value: session.generate() };
      case 'public-jwk':
        return { id: request.id, ok: true, value: session.publicJwk(request.kid) ?? null };
      case 'destroy':
        return { id: request.id, ok: true, value: session.destroy(request.kid) };
    }
  } catch (error) {
    return { id: request.id, ok: false, message: pkcs11Reason(error) };
  }
}

port.on('message', (raw: unknown) => {
  const message = toWorkerSchema.parse(raw);
  if (message.type === 'close') {
    session.close();
    post({ type: 'closed' });
    port.close();
    return;
  }
  post({ type: 'results', results: message.requests.map(answer) });
});
