/** The consent app's pages: every word the agent or the customer wrote shown as text, never markup. */

/** HTML text of any value. */
export const text = (value: unknown) =>
  String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

export const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${text(title)}</title>` +
  `<meta name="viewport" content="width=device-width"></head><body><h1>${text(title)}</h1>${body}</body></html>`;

/** A customer's name as the example takes it: a word, never a separator of the session cookie. */
export const CUSTOMER_NAME = /^[\w.@-]{1,64}$/;

export const signInPage = (back: string) =>
  page(
    'Sign in',
    `<p>An example store: sign in as any test customer.</p><form method="post" action="/sign-in">` +
      `<input type="hidden" name="back" value="${text(back)}">` +
      `<label>Customer <input name="customer" required pattern="[\\w.@-]{1,64}"></label> ` +
      `<button type="submit">Sign in</button></form>`,
  );

/** An authorization request as GET /v1/authorization-requests/{id} answers it. */
export interface Asked {
  readonly client: {
    readonly client_id: string;
    readonly client_name?: string;
    readonly client_uri?: string;
  };
  readonly scopes: readonly string[];
  readonly resource: string;
}

/** Who asks for what, in the agent's own words, and the customer's choice. */
export function consentPage(customer: string, id: string, asked: Asked, hidden: string) {
  const { client } = asked;
  const scopes = asked.scopes
    .map(
      (scope) =>
        `<li><label><input type="checkbox" name="scope" value="${text(scope)}" checked> ${text(scope)}</label></li>`,
    )
    .join('');
  return page(
    'An agent asks to act for you',
    `<p>Signed in as <b id="customer">${text(customer)}</b>.</p>` +
      `<p>In its own words, it is <b id="agent-name">${text(client.client_name ?? '(no name given)')}</b>` +
      (client.client_uri ? ` (<span id="agent-uri">${text(client.client_uri)}</span>)` : '') +
      `; it is known by <code>${text(client.client_id)}</code>.</p>` +
      `<p>It asks for <code>${text(asked.resource)}</code>:</p>` +
      `<form method="post" action="/decide">${hidden}` +
      `<input type="hidden" name="request" value="${text(id)}"><ul>${scopes}</ul>` +
      `<button type="submit" name="decision" value="accept" id="accept">Allow</button> ` +
      `<button type="submit" name="decision" value="reject" id="reject">Refuse</button></form>` +
      `<p><a href="/consents">Your consents</a></p>`,
  );
}

/** A consent as GET /v1/consents lists it. */
export interface Consent {
  readonly consent_id: string;
  readonly client_id: string;
  readonly scopes: readonly string[];
  readonly expires_at: number;
}

/** The customer's consents, each with a button that withdraws it. */
export function consentsPage(customer: string, consents: readonly Consent[], hidden: string) {
  const rows = consents
    .map(
      (consent) =>
        `<li class="consent"><code>${text(consent.client_id)}</code> may use ${text(consent.scopes.join(', ') || 'no scope')} until ${text(new Date(consent.expires_at * 1000).toISOString())}` +
        `<form method="post" action="/consents/revoke">${hidden}` +
        `<input type="hidden" name="consent" value="${text(consent.consent_id)}">` +
        `<button type="submit" class="revoke">Withdraw</button></form></li>`,
    )
    .join('');
  return page(
    'Your consents',
    `<p>Signed in as <b>${text(customer)}</b>.</p><ul id="consents">${rows}</ul>`,
  );
}
