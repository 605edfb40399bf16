-- Issue 64 item 4: a registered credential may be a code-flow client. Its redirect URIs, as its
-- events leave them (credential-created, credential-redirect-uris-changed); null: none, so
-- /authorize does not take it.
ALTER TABLE credentials ADD COLUMN redirect_uris text[];
